// A fake GitHub: the REST routes a bot comments through (issue comments, review-comment replies,
// which GitHub only allows on a thread's root comment) and GitHub's side of the webhook: signed
// `issue_comment` / `pull_request_review_comment` / `ping` deliveries with a delivery id. With
// `echo`, every comment the bot posts comes back as a webhook, as on GitHub (loop-guard tests).
// Payload shapes: https://docs.github.com/en/webhooks/webhook-events-and-payloads (issue_comment,
// pull_request_review_comment, pull_request_review); comments carry `created_at`/`updated_at`
// (ISO 8601, UTC), reviews `submitted_at`.
import { createHmac, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { answerJson, callWebhook, expectAcknowledged, readBody, type WebhookAnswer } from "../http-util.js";
import { HttpFake } from "../http-fake.js";

export interface FakeGitHubOptions {
  token: string;
  webhookSecret: string;
  /** The bot's login without `[bot]`. */
  botName: string;
  webhookUrl?: string;
  /** Deliver the bot's own comments back to the webhook. Default false. */
  echo?: boolean;
  /** `owner/repo` the token can read (GET /repos/{owner}/{repo}); others are 404. Default octo-org/hello-world. */
  repositories?: string[];
}

export interface GitHubUser {
  login: string;
  id: number;
  type?: "User" | "Bot";
}

/** A comment the bot posted. */
export interface GitHubPosted {
  id: number;
  owner: string;
  repo: string;
  body: string;
  /** `issues/<n>` or `pulls/<n>/comments/<root>` (a review-thread reply). */
  target: string;
}

type Json = Record<string, unknown>;

export class FakeGitHub extends HttpFake {
  readonly posted: GitHubPosted[] = [];
  /** Requests for hosted pictures (`asset`): the path and the status answered. */
  readonly assetRequests: { path: string; status: number; authorization: string | undefined }[] = [];
  readonly #assets = new Map<string, { bytes: Buffer; jwt: string; expiresAt: number }>();
  /** How long a signed picture URL works once handed out (GitHub's are short-lived). Default 5 min. */
  assetUrlLifetimeMs = 5 * 60_000;
  /** Every REST call, failed ones included. */
  calls = 0;
  webhookUrl: string;
  echo: boolean;
  readonly #options: FakeGitHubOptions;
  /** Review comments by id: their pull number and the id they reply to. */
  readonly #reviewComments = new Map<number, { pull: number; inReplyTo?: number }>();
  #nextId = 1000;
  /** Bodies by delivery id: a redelivery (same `X-GitHub-Delivery`) carries the same bytes. */
  readonly #deliveries = new Map<string, { event: string; body: string }>();
  #revoked = false;

  private constructor(options: FakeGitHubOptions) {
    super();
    this.#options = options;
    this.webhookUrl = options.webhookUrl ?? "";
    this.echo = options.echo ?? false;
  }

  static async start(options: FakeGitHubOptions): Promise<FakeGitHub> {
    const fake = new FakeGitHub(options);
    await fake.listen();
    return fake;
  }

  get botUser(): GitHubUser {
    return { login: `${this.#options.botName}[bot]`, id: 41898282, type: "Bot" };
  }

  sign(body: string | Uint8Array, secret = this.#options.webhookSecret): string {
    return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  }

  /** An `issue_comment` `created` delivery on issue (or PR conversation) `number`. */
  commentOnIssue(input: {
    owner?: string;
    repo?: string;
    number: number;
    body: string;
    user: GitHubUser;
    delivery?: string;
    action?: string;
    /** The comment id; a new one by default. */
    id?: number;
    /** When the comment was written (ISO 8601). Default now. */
    createdAt?: string;
  }): Promise<WebhookAnswer> {
    const id = input.id ?? this.#nextId++;
    const createdAt = input.createdAt ?? isoNow();
    const payload: Json = {
      action: input.action ?? "created",
      issue: { number: input.number, title: `Issue ${input.number}`, user: input.user },
      comment: {
        id,
        body: input.body,
        user: input.user,
        html_url: `https://github.com/x/y/issues/${input.number}#issuecomment-${id}`,
        created_at: createdAt,
        updated_at: input.action === "edited" ? isoNow() : createdAt,
        author_association: "CONTRIBUTOR",
      },
      repository: repository(input.owner, input.repo),
      sender: input.user,
    };
    return this.deliver("issue_comment", payload, input.delivery);
  }

  /** A `pull_request_review_comment` `created` delivery; `inReplyTo` makes it a reply in that thread. */
  commentOnReview(input: {
    owner?: string;
    repo?: string;
    pull: number;
    body: string;
    user: GitHubUser;
    inReplyTo?: number;
    delivery?: string;
    id?: number;
    action?: string;
    createdAt?: string;
  }): Promise<WebhookAnswer> {
    const id = input.id ?? this.#nextId++;
    const createdAt = input.createdAt ?? isoNow();
    this.#reviewComments.set(id, {
      pull: input.pull,
      ...(input.inReplyTo ? { inReplyTo: input.inReplyTo } : {}),
    });
    const payload: Json = {
      action: input.action ?? "created",
      comment: {
        id,
        body: input.body,
        user: input.user,
        path: "src/index.ts",
        ...(input.inReplyTo ? { in_reply_to_id: input.inReplyTo } : {}),
        pull_request_review_id: 77,
        created_at: createdAt,
        updated_at: input.action === "edited" ? isoNow() : createdAt,
        author_association: "CONTRIBUTOR",
      },
      pull_request: { number: input.pull, title: `PR ${input.pull}` },
      repository: repository(input.owner, input.repo),
      sender: input.user,
    };
    return this.deliver("pull_request_review_comment", payload, input.delivery);
  }

  /**
   * A `pull_request_review` delivery (default action `submitted`): the review summary, whose `body`
   * may be null, with `state` `commented`, `approved` or `changes_requested`.
   */
  reviewPullRequest(input: {
    owner?: string;
    repo?: string;
    pull: number;
    body: string | null;
    user: GitHubUser;
    state?: "commented" | "approved" | "changes_requested";
    action?: string;
    id?: number;
    submittedAt?: string;
    delivery?: string;
  }): Promise<WebhookAnswer> {
    const id = input.id ?? this.#nextId++;
    const payload: Json = {
      action: input.action ?? "submitted",
      review: {
        id,
        node_id: `PRR_${id}`,
        user: input.user,
        body: input.body,
        commit_id: "ecdd80bb57125d7ba9641ffaa4d7d2c19d3f3091",
        submitted_at: input.submittedAt ?? isoNow(),
        state: input.state ?? "commented",
        html_url: `https://github.com/x/y/pull/${input.pull}#pullrequestreview-${id}`,
        author_association: "CONTRIBUTOR",
      },
      pull_request: { number: input.pull, title: `PR ${input.pull}` },
      repository: repository(input.owner, input.repo),
      sender: input.user,
    };
    return this.deliver("pull_request_review", payload, input.delivery);
  }

  /** The token is revoked (or the installation removed): every REST call answers 401 Bad credentials. */
  revokeToken(): void {
    this.#revoked = true;
  }

  ping(): Promise<WebhookAnswer> {
    return this.deliver("ping", {
      zen: "Keep it logically awesome.",
      hook_id: 1,
      hook: { type: "Repository" },
    });
  }

  /**
   * Signs and POSTs one delivery; `headers` replace the ones GitHub would send. A delivery id used
   * before is a redelivery: GitHub sends the original payload again, so the earlier bytes go out
   * ("Redelivering webhooks", https://docs.github.com/en/webhooks/testing-and-troubleshooting-webhooks/redelivering-webhooks).
   */
  deliver(
    event: string,
    payload: Json | string,
    delivery: string = randomUUID(),
    headers?: Record<string, string>,
  ): Promise<WebhookAnswer> {
    const earlier = headers ? undefined : this.#deliveries.get(delivery);
    const body = earlier?.body ?? (typeof payload === "string" ? payload : JSON.stringify(payload));
    event = earlier?.event ?? event;
    if (!headers) this.#deliveries.set(delivery, { event, body });
    return callWebhook(
      this.webhookUrl,
      body,
      headers ?? {
        "content-type": "application/json",
        "user-agent": "GitHub-Hookshot/fake",
        "x-github-event": event,
        "x-github-delivery": delivery,
        "x-github-hook-id": "1",
        "x-hub-signature-256": this.sign(body),
      },
    );
  }

  /**
   * A picture pasted into a comment: GitHub stores it and links `https://github.com/user-attachments/assets/<uuid>`
   * in the markdown (https://docs.github.com/en/get-started/writing-on-github/working-with-advanced-formatting/attaching-files).
   * Here the link is on the fake's host; it answers 302 to a signed, short-lived URL (a `jwt`
   * parameter, `assetUrlLifetimeMs`) on `/private-user-images/`, as github.com redirects to
   * private-user-images.githubusercontent.com; that URL answers 404 once expired or with another jwt.
   */
  asset(bytes: Buffer): string {
    const id = randomUUID();
    this.#assets.set(id, { bytes, jwt: "", expiresAt: 0 });
    return `${this.url}/user-attachments/assets/${id}`;
  }

  async deliverAcknowledged(answer: Promise<WebhookAnswer>): Promise<WebhookAnswer> {
    return expectAcknowledged(await answer, "fake github delivery");
  }

  protected async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? "/", "http://x");
    const path = url.pathname;
    if (req.method === "GET" && /^\/(user-attachments\/assets|private-user-images)\//.test(path))
      return this.#serveAsset(url, req, res);
    // The authenticated user (https://docs.github.com/en/rest/users/users#get-the-authenticated-user):
    // what `agentsvc doctor` asks to prove the token works.
    if (req.method === "GET" && path === "/user") {
      if (this.#revoked || req.headers.authorization !== `Bearer ${this.#options.token}`)
        return answerJson(res, 401, { message: "Bad credentials" });
      return answerJson(res, 200, this.botUser);
    }
    // A repository (https://docs.github.com/en/rest/repos/repos#get-a-repository): 404 Not Found,
    // not 403, when the token cannot see it, so a private repository's existence does not leak.
    const repoPath = /^\/repos\/([^/]+)\/([^/]+)$/.exec(path);
    if (req.method === "GET" && repoPath) {
      if (this.#revoked || req.headers.authorization !== `Bearer ${this.#options.token}`)
        return answerJson(res, 401, { message: "Bad credentials" });
      const [owner, repo] = [repoPath[1] as string, repoPath[2] as string];
      if (!(this.#options.repositories ?? ["octo-org/hello-world"]).includes(`${owner}/${repo}`))
        return answerJson(res, 404, {
          message: "Not Found",
          documentation_url: "https://docs.github.com/rest/repos/repos#get-a-repository",
          status: "404",
        });
      return answerJson(res, 200, repository(owner, repo));
    }
    const issue = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(path);
    const reply = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/comments\/(\d+)\/replies$/.exec(path);
    if (req.method !== "POST" || (!issue && !reply)) return answerJson(res, 404, { message: "Not Found" });
    this.calls += 1;
    if (this.#revoked || req.headers.authorization !== `Bearer ${this.#options.token}`)
      return answerJson(res, 401, { message: "Bad credentials" });
    if (!req.headers["user-agent"]) return answerJson(res, 403, { message: "User-Agent header is required" });
    if (
      this.failures.answer(res, (status) => ({
        message: status === 429 ? "You have exceeded a secondary rate limit" : "Server Error",
      }))
    )
      return;
    let body: string;
    try {
      body = String((JSON.parse(raw.toString("utf8")) as Json).body ?? "");
    } catch {
      return answerJson(res, 400, { message: "Problems parsing JSON" });
    }
    if (body === "" || body.length > 65536) return answerJson(res, 422, { message: "Validation Failed" });
    const [owner, repo] = [(issue ?? reply)?.[1] as string, (issue ?? reply)?.[2] as string];
    const id = this.#nextId++;
    if (issue) {
      this.posted.push({ id, owner, repo, body, target: `issues/${issue[3]}` });
      answerJson(res, 201, { id, body, user: this.botUser });
      if (this.echo)
        void this.commentOnIssue({ owner, repo, number: Number(issue[3]), body, user: this.botUser });
      return;
    }
    const pull = Number(reply?.[3]);
    const root = Number(reply?.[4]);
    const known = this.#reviewComments.get(root);
    // GitHub refuses replies to replies and to comments of another pull request.
    if (!known || known.pull !== pull || known.inReplyTo !== undefined)
      return answerJson(res, 404, { message: "Not Found" });
    this.posted.push({ id, owner, repo, body, target: `pulls/${pull}/comments/${root}` });
    answerJson(res, 201, { id, body, in_reply_to_id: root, user: this.botUser });
    if (this.echo)
      void this.commentOnReview({ owner, repo, pull, body, user: this.botUser, inReplyTo: root, id });
  }

  #serveAsset(url: URL, req: IncomingMessage, res: ServerResponse) {
    const answer = (status: number) =>
      this.assetRequests.push({ path: url.pathname, status, authorization: req.headers.authorization });
    const link = /^\/user-attachments\/assets\/([^/]+)$/.exec(url.pathname)?.[1];
    if (link) {
      const asset = this.#assets.get(link);
      if (!asset) {
        answer(404);
        return answerJson(res, 404, { message: "Not Found" });
      }
      asset.jwt = randomUUID();
      asset.expiresAt = Date.now() + this.assetUrlLifetimeMs;
      answer(302);
      res.writeHead(302, { location: `${this.url}/private-user-images/${link}.png?jwt=${asset.jwt}` }).end();
      return;
    }
    const signed = /^\/private-user-images\/([^/]+)\.png$/.exec(url.pathname)?.[1] ?? "";
    const asset = this.#assets.get(signed);
    if (!asset || url.searchParams.get("jwt") !== asset.jwt || Date.now() > asset.expiresAt) {
      answer(404);
      return void res.writeHead(404).end();
    }
    answer(200);
    res
      .writeHead(200, { "content-type": "image/png", "content-length": asset.bytes.length })
      .end(asset.bytes);
  }
}

/** GitHub's timestamps: ISO 8601 in UTC, to the second. */
const isoNow = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

function repository(owner = "octo-org", repo = "hello-world"): Json {
  return { name: repo, full_name: `${owner}/${repo}`, owner: { login: owner, id: 9919 }, private: false };
}
