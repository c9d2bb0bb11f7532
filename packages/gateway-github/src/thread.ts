// Conversation ids: `repo:<owner>/<repo>:issue:<number>` for an issue or PR conversation, and
// `repo:<owner>/<repo>:review-comment:<root_comment_id>` for an inline review thread.

export type GitHubThread =
  | { kind: "issue"; owner: string; repo: string; number: number }
  | { kind: "review"; owner: string; repo: string; root: number };

export function threadId(t: GitHubThread): string {
  return t.kind === "issue"
    ? `repo:${t.owner}/${t.repo}:issue:${t.number}`
    : `repo:${t.owner}/${t.repo}:review-comment:${t.root}`;
}

export function parseThreadId(id: string): GitHubThread | undefined {
  const m = /^repo:([^/:\s]+)\/([^/:\s]+):(issue|review-comment):(\d+)$/.exec(id);
  if (!m) return undefined;
  const [, owner, repo, kind, n] = m as unknown as [string, string, string, string, string];
  return kind === "issue"
    ? { kind: "issue", owner, repo, number: Number(n) }
    : { kind: "review", owner, repo, root: Number(n) };
}
