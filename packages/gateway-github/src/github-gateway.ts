// The `github` push-style gateway. Inbound: GitHub's webhook at /webhooks/github; only new issue
// and review comments that mention `@<botName>` start a turn. Outbound: new comments through the
// REST API, each ending with a marker so the bot never answers itself. No buttons: approvals go as
// the session's plain-text request and are decided by a reply in the thread.
import { DEFAULT_RETENTION, matchDecisionText } from "@agentsvc/session-core";
import type {
  Gateway,
  GatewayCapabilities,
  GatewayContext,
  SendOptions,
  SendResult,
  WebhookRequest,
  WebhookResponse,
  WebhookRoute,
} from "@agentsvc/session-core";
import { readSecrets, SIGNATURE_HEADER, verifyHubSignature, plainResponse } from "@agentsvc/webhook-kit";
import { isOwnComment, mentionedText, POSTED_MARKER } from "./mention.js";
import { postComment, type RestTarget } from "./rest-client.js";
import { type GitHubThread, parseThreadId, threadId } from "./thread-id.js";

export const DEFAULT_API_BASE_URL = "https://api.github.com";
/** GitHub's comment body limit is 65 536 characters; room is kept for the marker and a hint. */
export const COMMENT_LIMIT = 65_000;
const COMMENT_EVENTS = new Set(["issue_comment", "pull_request_review_comment", "pull_request_review"]);
/**
 * A comment older than this is refused: its dedup record (kept as long as the session keeps
 * finished inbox records) may be gone, so a captured delivery would otherwise run again.
 */
export const DEDUP_WINDOW_MS = DEFAULT_RETENTION.inboxMs;

export interface GithubGatewayOptions {
  tokenEnvVar: string;
  webhookSecretEnvVar: string;
  botNameEnvVar: string;
  /** REST base URL. Default `https://api.github.com`; GitHub Enterprise Server: `https://<host>/api/v3`. */
  apiBaseUrl?: string;
  name?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export class GithubGateway implements Gateway {
  readonly kind = "push" as const;
  readonly type = "github";
  readonly name = "github";
  readonly capabilities: GatewayCapabilities = { threads: true, interactiveActions: false };
  readonly messageLimit = COMMENT_LIMIT;
  readonly webhooks: readonly WebhookRoute[];
  readonly #options: GithubGatewayOptions;
  #context: GatewayContext | undefined;
  #rest: RestTarget | undefined;
  #secret = "";
  #botName = "";
  #abort = new AbortController();

  constructor(options: GithubGatewayOptions) {
    this.#options = options;
    this.webhooks = [{ method: "POST", handle: (req) => this.#delivery(req) }];
  }

  async start(context: GatewayContext): Promise<void> {
    const o = this.#options;
    const secrets = readSecrets(
      context,
      { token: o.tokenEnvVar, webhookSecret: o.webhookSecretEnvVar, botName: o.botNameEnvVar },
      o.env,
    );
    this.#rest = { apiBaseUrl: o.apiBaseUrl ?? DEFAULT_API_BASE_URL, token: secrets.token };
    this.#secret = secrets.webhookSecret;
    // Accept the name with or without the `[bot]` suffix an App's login carries.
    this.#botName = secrets.botName.replace(/^@/, "").replace(/\[bot\]$/i, "");
    this.#abort = new AbortController();
    this.#context = context;
  }

  async stop(): Promise<void> {
    this.#context = undefined;
    this.#abort.abort();
  }

  async send(thread: string, text: string, options: SendOptions): Promise<SendResult | undefined> {
    const context = this.#context;
    if (!context || !this.#rest) throw new Error("github gateway is not started");
    const target = parseThreadId(thread);
    if (!target) throw new Error(`github: "${thread}" is not a github thread id`);
    const pull =
      target.kind === "review"
        ? (numberOf(options.meta?.pull) ?? (await context.state.get<number>(`pull:${thread}`)))
        : undefined;
    // Remembered before posting, so an answer written right after the request finds it.
    if (options.requestId) await context.state.set(`request:${thread}`, options.requestId);
    const body = this.#decorate(text, options.requestId !== undefined);
    const id = await postComment(this.#rest, target, pull, body, this.#abort.signal);
    return id ? { messageId: id } : {};
  }

  /** Every posted comment ends with the marker; a text approval request says how to answer it. */
  #decorate(text: string, isRequest: boolean): string {
    const hint = isRequest
      ? `\n\nAnswer with a comment in this thread that mentions @${this.#botName}, for example \`@${this.#botName} approve\`.`
      : "";
    return `${text}${hint}\n\n${POSTED_MARKER}`;
  }

  async #delivery(req: WebhookRequest): Promise<WebhookResponse> {
    const context = this.#context;
    if (!context) return plainResponse(503);
    const verdict = verifyHubSignature(this.#secret, req.headers[SIGNATURE_HEADER], req.rawBody);
    if (!verdict.ok) {
      context.logger.warn(
        { reason: verdict.reason, delivery: req.headers["x-github-delivery"] },
        "webhook signature rejected",
      );
      return plainResponse(401);
    }
    const event = req.headers["x-github-event"] ?? "";
    const delivery = req.headers["x-github-delivery"];
    if (!COMMENT_EVENTS.has(event)) {
      context.logger.debug({ event, delivery, reason: `event ${event}` }, "event ignored");
      return plainResponse(200, "ignored");
    }
    const payload = readPayload(req);
    if (!payload) {
      context.logger.warn({ event, delivery }, "signed delivery with an unreadable body; ignored");
      return plainResponse(400);
    }
    const found = this.#read(event, payload);
    if ("ignored" in found) {
      context.logger.debug({ event, delivery, reason: found.ignored }, "comment ignored");
      return plainResponse(200, "ignored");
    }
    const thread = threadId(found.thread);
    const refused = await this.#refusal(context, thread, found);
    if (refused) {
      context.logger.info(
        { event, delivery, commentId: found.commentId, reason: refused },
        "comment ignored",
      );
      return plainResponse(200, "ignored");
    }
    try {
      if (found.pull !== undefined) await context.state.set(`pull:${thread}`, found.pull);
      const result = await context.deliver({
        // The id inside the signed body: `X-GitHub-Delivery` is not signed and changes on a replay.
        dedupKey: found.dedupKey,
        thread,
        text: found.text,
        author: { id: found.author.id, displayName: found.author.login, isBot: false },
        meta: { commentId: found.commentId, ...(found.pull !== undefined ? { pull: found.pull } : {}) },
      });
      if (!result.accepted)
        context.logger.debug({ delivery, dedupKey: found.dedupKey }, "duplicate comment acknowledged");
    } catch (err) {
      context.logger.error(
        { err, delivery },
        "could not record a comment; answering 500 so it can be redelivered",
      );
      return plainResponse(500);
    }
    return plainResponse(200);
  }

  /**
   * Why a signed comment is still refused: older than the dedup window, or a decision written before
   * the request now pending in its thread (a captured "@bot approve" meant for an earlier request).
   */
  async #refusal(context: GatewayContext, thread: string, c: Comment): Promise<string | undefined> {
    if (Date.now() - c.writtenAt > DEDUP_WINDOW_MS) return "older than the dedup window";
    const requestId = await context.state.get<string>(`request:${thread}`);
    const request = requestId ? await context.interaction(requestId) : undefined;
    if (request?.status !== "open" || !matchDecisionText(c.text, request.allowedDecisions)) return undefined;
    // GitHub's timestamps have whole seconds.
    if (Math.floor(c.writtenAt / 1000) < Math.floor(request.createdAt / 1000))
      return "a decision written before the pending request was made";
    return undefined;
  }

  #read(event: string, p: Json): { ignored: string } | Comment {
    const review = event === "pull_request_review";
    if (p.action !== (review ? "submitted" : "created")) return { ignored: `action ${String(p.action)}` };
    const comment = isObject(review ? p.review : p.comment)
      ? ((review ? p.review : p.comment) as Json)
      : undefined;
    const repo = isObject(p.repository) ? p.repository : undefined;
    const user = isObject(comment?.user) ? comment.user : undefined;
    const owner = isObject(repo?.owner) ? String(repo.owner.login ?? "") : "";
    const name = String(repo?.name ?? "");
    const body = typeof comment?.body === "string" ? comment.body : "";
    const commentId = numberOf(comment?.id);
    const writtenAt = Date.parse(String((review ? comment?.submitted_at : comment?.created_at) ?? ""));
    if (!comment || !user || !owner || !name || commentId === undefined)
      return { ignored: "incomplete payload" };
    if (Number.isNaN(writtenAt)) return { ignored: "no creation time" };
    const login = String(user.login ?? "");
    if (isOwnComment({ login, type: String(user.type ?? "") }, body, this.#botName))
      return { ignored: "own or bot comment" };
    const text = mentionedText(body, this.#botName);
    if (text === undefined) return { ignored: "no mention" };
    if (text === "") return { ignored: "a bare mention" };
    const author = { id: String(user.id ?? login), login };
    const base = { text, commentId, author, writtenAt };
    if (event === "issue_comment") {
      const number = numberOf(isObject(p.issue) ? p.issue.number : undefined);
      if (number === undefined) return { ignored: "no issue number" };
      const thread: GitHubThread = { kind: "issue", owner, repo: name, number };
      return { ...base, thread, dedupKey: `issue-comment:${commentId}` };
    }
    const pull = numberOf(isObject(p.pull_request) ? p.pull_request.number : undefined);
    if (pull === undefined) return { ignored: "no pull request number" };
    if (review) {
      // A review summary belongs to the pull request's conversation, where the answer goes.
      const thread: GitHubThread = { kind: "issue", owner, repo: name, number: pull };
      return { ...base, thread, dedupKey: `review:${commentId}` };
    }
    const root = numberOf(comment.in_reply_to_id) ?? commentId;
    const thread: GitHubThread = { kind: "review", owner, repo: name, root };
    return { ...base, thread, pull, dedupKey: `review-comment:${commentId}` };
  }
}

/** A comment (or review summary) for the bot, read from a signed delivery. */
interface Comment {
  thread: GitHubThread;
  pull?: number;
  text: string;
  commentId: number;
  /** Unique per comment across the three events; the inbox dedup key. */
  dedupKey: string;
  /** `created_at` (`submitted_at` for a review), ms epoch. */
  writtenAt: number;
  author: { id: string; login: string };
}

function numberOf(v: unknown): number | undefined {
  return typeof v === "number" && Number.isInteger(v) ? v : undefined;
}

/** JSON body, or a form body with a `payload` field (the webhook's other content type). */
function readPayload(req: WebhookRequest): Json | undefined {
  const text = Buffer.from(req.rawBody).toString("utf8");
  try {
    const raw = (req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")
      ? new URLSearchParams(text).get("payload")
      : text;
    const parsed: unknown = raw === null ? undefined : JSON.parse(raw);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function createGithubGateway(options: GithubGatewayOptions): GithubGateway {
  return new GithubGateway(options);
}
