// `agentsvc doctor` for a github entry, nothing sent:
//   GET /user: https://docs.github.com/en/rest/users/users#get-the-authenticated-user
//   GET /repos/{owner}/{repo} for the repository approvalDestination names:
//   https://docs.github.com/en/rest/repos/repos#get-a-repository (404, not 403, for a private
//   repository the token cannot see)
import {
  type AdapterDoctor,
  callJson,
  type DoctorResult,
  field,
  secretOf,
  trimUrl,
} from "@agentsvc/config-schema/adapter";
import type { GithubEntry } from "./schema.js";

/** The repositories the entry names (its approvalDestination, `repo:<owner>/<repo>:...`). */
function repositories(entry: GithubEntry): string[] {
  const m = /^repo:([^/:\s]+\/[^/:\s]+):/.exec(entry.approvalDestination ?? "");
  return m?.[1] ? [m[1]] : [];
}

function repositoryCheck(
  entry: GithubEntry,
  repo: string,
  r: { status: number; body: unknown },
): DoctorResult {
  if (r.status === 200)
    return { check: `github repository ${repo}`, status: "ok", detail: `the token can read ${repo}` };
  return {
    check: `github repository ${repo}`,
    status: "failed",
    detail: `${r.status} ${String(field(r.body, "message") ?? "")}`.trim(),
    fix:
      r.status === 404
        ? `the token in ${entry.tokenEnvVar} cannot see ${repo}: add the repository to the token's repository access (or install the GitHub App on it), or fix approvalDestination`
        : `GitHub answered ${r.status} for ${repo}: check ${entry.tokenEnvVar}`,
  };
}

export const doctor: AdapterDoctor = async (raw, { env }) => {
  const entry = raw as unknown as GithubEntry;
  const check = "github GET /user";
  const token = secretOf(env, entry.tokenEnvVar, check);
  if (typeof token !== "string") return [token];
  const get = (path: string) =>
    callJson(`${trimUrl(entry.apiBaseUrl)}${path}`, {
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/vnd.github+json",
        "user-agent": "agentsvc-doctor",
      },
    });
  const { status, body } = await get("/user");
  if (status !== 200)
    return [
      {
        check,
        status: "failed",
        detail: `${status} ${String(field(body, "message") ?? "")}`.trim(),
        fix: `${entry.tokenEnvVar} must hold a current token (a fine-grained token or GitHub App installation token with issues and pull requests write)`,
      },
    ];
  const out: DoctorResult[] = [
    { check, status: "ok", detail: `token of ${String(field(body, "login") ?? "?")}` },
  ];
  for (const repo of repositories(entry)) out.push(repositoryCheck(entry, repo, await get(`/repos/${repo}`)));
  return out;
};
