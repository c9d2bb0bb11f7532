// The `github` push-style gateway. Inbound: GitHub's webhook at /webhooks/github (webhook.ts); only
// new issue comments, review comments and review summaries that mention `@<botName>` start a turn
// (inbound.ts). Outbound: new comments through the REST API (api.ts), each ending with a marker so
// the bot never answers itself. No buttons: approvals go as the session's plain-text request and are
// decided by a reply in the thread.
import {
  type AttachmentRef,
  chunkText,
  type DecidedNotice,
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type GatewayFactory,
  readSecrets,
  type SendOptions,
  type SendResult,
  type WebhookRoute,
  LifetimeGateway,
} from "@agentsvc/adapter-kit";
import type { MediaPolicy } from "@agentsvc/webhook-kit";
import { postComment, type RestTarget } from "./api.js";
import { downloadImage, linkedImages } from "./images.js";
import { type Comment, numberOf, POSTED_MARKER } from "./inbound.js";
import { parseThreadId } from "./thread.js";
import { githubWebhook } from "./webhook.js";
import { DEFAULT_API_BASE_URL } from "./schema.js";
import { quietTeamMentions } from "./team-mentions.js";

/** GitHub's comment body limit is 65 536 characters; room is kept for the marker and a hint. */
export const MESSAGE_LIMIT = 65_000;

export interface GithubGatewayOptions {
  tokenEnvVar: string;
  webhookSecretEnvVar: string;
  botNameEnvVar: string;
  /** REST base URL. Default `https://api.github.com`; GitHub Enterprise Server: `https://<host>/api/v3`. */
  apiBaseUrl?: string;
  name?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The entry's `media` block: pictures linked in a comment (GitHub's attachment URLs) are taken in
   * within its kinds and size. Absent: they stay links in the text and nothing is fetched.
   */
  media?: MediaPolicy;
}

export class GithubGateway extends LifetimeGateway implements Gateway {
  readonly kind = "push" as const;
  readonly type = "github";
  readonly name = "github";
  readonly capabilities: GatewayCapabilities = { threads: true, interactiveActions: false };
  readonly messageLimit = MESSAGE_LIMIT;
  readonly webhooks: readonly WebhookRoute[];
  readonly #options: GithubGatewayOptions;
  #rest: RestTarget | undefined;
  #secret = "";
  #botName = "";

  constructor(options: GithubGatewayOptions) {
    super();
    this.#options = options;
    this.webhooks = [
      githubWebhook({
        context: () => this.life.context,
        secret: () => this.#secret,
        botName: () => this.#botName,
        pendingRequest: (thread, ctx) => ctx.state.get<string>(`request:${thread}`),
        handle: (comment, ctx) => this.#record(comment, ctx),
      }),
    ];
  }

  protected async open(context: GatewayContext): Promise<void> {
    const o = this.#options;
    const secrets = readSecrets(
      context,
      { token: o.tokenEnvVar, webhookSecret: o.webhookSecretEnvVar, botName: o.botNameEnvVar },
      {
        ...(o.env ? { env: o.env } : {}),
        gateway: "github",
        describe: {
          token: "an App installation token or a PAT of the bot account",
          webhookSecret: "the webhook's secret",
          botName: "the login people mention, without [bot]",
        },
      },
    );
    this.#rest = {
      apiBaseUrl: o.apiBaseUrl ?? DEFAULT_API_BASE_URL,
      token: secrets.token,
      envVar: o.tokenEnvVar,
    };
    this.#secret = secrets.webhookSecret;
    // Accept the name with or without the `[bot]` suffix an App's login carries.
    this.#botName = secrets.botName.replace(/^@/, "").replace(/\[bot\]$/i, "");
  }

  /**
   * Pieces as posted: each cut first and then quieted (a cut can end a code span, so the text after it
   * is read again); one the joiners pushed over the limit is cut and quieted once more.
   */
  chunk(markdown: string): string[] {
    return chunkText(markdown, MESSAGE_LIMIT).flatMap((piece) => {
      const quiet = quietTeamMentions(piece);
      return quiet.length <= MESSAGE_LIMIT ? [quiet] : chunkText(quiet, MESSAGE_LIMIT).map(quietTeamMentions);
    });
  }

  async send(thread: string, text: string, options: SendOptions): Promise<SendResult | undefined> {
    const context = this.life.context;
    if (!context || !this.#rest) throw new Error("github gateway is not started");
    const target = parseThreadId(thread);
    if (!target) throw new Error(`github: "${thread}" is not a github thread id`);
    const pull =
      target.kind === "review"
        ? (numberOf(options.meta?.pull) ?? (await context.state.get<number>(`pull:${thread}`)))
        : undefined;
    // Remembered before posting, so an answer written right after the request finds it.
    if (options.requestId) await context.state.set(`request:${thread}`, options.requestId);
    // A team the visitor may not mention is never notified through the bot (team-mentions.ts).
    const body = this.#decorate(quietTeamMentions(text), options.requestId !== undefined);
    const id = await postComment(this.#rest, target, pull, body, this.life.signal);
    return id ? { messageId: id } : {};
  }

  /**
   * The request is decided: its `request:<thread>` row goes. Only the webhook's check of a decision
   * comment reads it, and only while the request is open; a newer request of the thread keeps its row.
   */
  async onDecided(notice: DecidedNotice): Promise<void> {
    const context = this.life.context;
    if (!context) throw new Error("github gateway is not started");
    const key = `request:${notice.thread}`;
    if ((await context.state.get<string>(key)) === notice.requestId) await context.state.delete(key);
  }

  /** Every posted comment ends with the marker; a text approval request says how to answer it. */
  #decorate(text: string, isRequest: boolean): string {
    const hint = isRequest
      ? `\n\nAnswer with a comment in this thread that mentions @${this.#botName}, for example \`@${this.#botName} approve\`.`
      : "";
    return `${text}${hint}\n\n${POSTED_MARKER}`;
  }

  async #record(c: Comment & { threadId: string }, context: GatewayContext): Promise<void> {
    if (c.pull !== undefined) await context.state.set(`pull:${c.threadId}`, c.pull);
    // Pictures are stored before deliver, whose inbox record keeps the refs. Without a media block
    // they stay links in the text (a comment's link is no upload to refuse).
    const attachments: AttachmentRef[] = [];
    const apiBaseUrl = this.#rest?.apiBaseUrl ?? DEFAULT_API_BASE_URL;
    if (this.#options.media)
      for (const image of linkedImages(c.text, apiBaseUrl))
        attachments.push(await downloadImage(context, image, this.#options.media, apiBaseUrl));
    const result = await context.deliver({
      ...(attachments.length > 0 ? { attachments } : {}),
      // The id inside the signed body: `X-GitHub-Delivery` is not signed and changes on a replay.
      dedupKey: c.dedupKey,
      thread: c.threadId,
      text: c.text,
      author: { id: c.author.id, displayName: c.author.login, isBot: false },
      // Anyone who can comment on the repository writes here: a group, named owner/repo.
      chat: { type: "group", id: `${c.thread.owner}/${c.thread.repo}` },
      meta: { commentId: c.commentId, ...(c.pull !== undefined ? { pull: c.pull } : {}) },
    });
    if (!result.accepted) context.logger.debug({ dedupKey: c.dedupKey }, "duplicate comment acknowledged");
  }
}

export const createGateway: GatewayFactory<GithubGatewayOptions> = (options) => new GithubGateway(options);
