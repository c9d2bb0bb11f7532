// The `teams` push-style gateway (Microsoft Teams through the Bot Framework). Inbound: the
// connector POSTs activities to /webhooks/teams with a signed JWT (webhook.ts); personal-chat
// messages, channel and group-chat messages that @mention the bot, and card-click invokes are
// handled (inbound.ts). Outbound: the connector's conversation-activities routes with an OAuth2
// client-credentials token (api.ts). Approvals: an Adaptive Card, updated once decided.
import {
  type AttachmentRef,
  type DecidedNotice,
  finishDraftOf,
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type GatewayFactory,
  type InteractionRequest,
  type OutboundFile,
  LifetimeGateway,
  readSecrets,
  type SendOptions,
  type SendResult,
  streamOf,
  type WebhookResponse,
  type WebhookRoute,
} from "@agentsvc/adapter-kit";
import { BotToken, connectorCall } from "./api.js";
import { approvalCard, decidedCard } from "./approval-card.js";
import { ConnectorAuth } from "./connector-auth.js";
import { downloadFile, type MediaOptions } from "./download.js";
import {
  consentCard,
  consentKey,
  fileInfoCard,
  fileLink,
  inlineFits,
  inlineImage,
  type PendingFile,
  uploadHostAllowed,
  uploadToSession,
} from "./files-out.js";
import type { TeamsClick, TeamsConsent, TeamsMessage } from "./inbound.js";
import { TeamsStreams } from "./stream.js";
import { invokeAnswer, teamsWebhook } from "./webhook.js";
import {
  DEFAULT_LOGIN_BASE_URL,
  DEFAULT_OPENID_METADATA_URL,
  DEFAULT_SERVICE_URL,
  DEFAULT_TENANT_ID,
} from "./schema.js";

export const MESSAGE_LIMIT = 4000;

export interface TeamsGatewayOptions {
  appIdEnvVar: string;
  appPasswordEnvVar: string;
  /** Tenant the outbound token is requested from. Default `botframework.com` (multi-tenant bots). */
  tenantId?: string;
  openIdMetadataUrl?: string;
  loginBaseUrl?: string;
  /** Connector URL for a conversation with no activity seen yet (an approval destination). */
  serviceUrl?: string;
  name?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The entry's `media` block: the kinds and size of files taken in. Absent: a file is refused
   * (`disabled`) without a download, and the session answers saying so.
   */
  media?: MediaOptions;
}

type Json = Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" ? v : undefined);

export class TeamsGateway extends LifetimeGateway implements Gateway {
  readonly kind = "push" as const;
  readonly type = "teams";
  readonly name = "teams";
  readonly capabilities: GatewayCapabilities = { threads: true, interactiveActions: true, streaming: true };
  readonly #streams = new TeamsStreams({
    post: (conversationId, meta, activity, signal) => this.#post(conversationId, meta, activity, signal),
  });
  /** The streaming protocol in one-on-one chats; other chats get the normal message (see stream.ts). */
  readonly stream = streamOf(this.#streams);
  readonly finishDraft = finishDraftOf(this.#streams);
  readonly messageLimit = MESSAGE_LIMIT;
  readonly webhooks: readonly WebhookRoute[];
  readonly #options: TeamsGatewayOptions;
  #auth: ConnectorAuth | undefined;
  #token: BotToken | undefined;

  constructor(options: TeamsGatewayOptions) {
    super();
    this.#options = options;
    this.webhooks = [
      teamsWebhook({
        context: () => this.life.context,
        auth: () => this.#auth,
        message: (m, ctx) => this.#message(m, ctx),
        click: (c, ctx) => this.#click(c, ctx),
        consent: (c, ctx) => this.#consent(c, ctx),
      }),
    ];
  }

  protected async open(context: GatewayContext): Promise<void> {
    const o = this.#options;
    const { appId, appPassword } = readSecrets(
      context,
      { appId: o.appIdEnvVar, appPassword: o.appPasswordEnvVar },
      {
        ...(o.env ? { env: o.env } : {}),
        gateway: "teams",
        describe: {
          appId: "the Azure Bot's Microsoft App ID",
          appPassword: "a client secret of that app registration",
        },
      },
    );
    const tenant = o.tenantId ?? DEFAULT_TENANT_ID;
    const login = (o.loginBaseUrl ?? DEFAULT_LOGIN_BASE_URL).replace(/\/+$/, "");
    // Both live as long as this instance: the key set and the token are cached in them.
    this.#auth = new ConnectorAuth(o.openIdMetadataUrl ?? DEFAULT_OPENID_METADATA_URL, appId, (detail) =>
      context.logger.warn(
        { detail },
        "the connector's key set could not be refreshed; the keys fetched last verify meanwhile",
      ),
    );
    this.#token = new BotToken(
      `${login}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`,
      appId,
      appPassword,
      { envVar: o.appPasswordEnvVar },
    );
  }

  async send(thread: string, text: string, options: SendOptions): Promise<SendResult | undefined> {
    const id = await this.#post(thread, options.meta, { type: "message", text, textFormat: "markdown" });
    return id ? { messageId: id } : {};
  }

  /**
   * One file of a reply (see files-out.ts): a small picture inline, else a file consent card in a
   * personal chat (uploaded when the user allows it), else a link to the signed file URL.
   */
  async sendFile(thread: string, file: OutboundFile, options: SendOptions): Promise<SendResult | undefined> {
    let activity: Json;
    if (inlineFits(file)) activity = inlineImage(file, await file.bytes());
    else if (options.meta?.conversationType === "personal") {
      const context = this.#ready();
      const key = consentKey(options.idempotencyKey);
      const { blob, name, contentType, size, caption } = file;
      const pending: PendingFile = {
        blob,
        name,
        contentType,
        size,
        ...(caption ? { caption } : {}),
        conversationId: thread,
      };
      // Kept before the card goes out, so an Allow pressed at once finds it; a retry keeps it.
      if (!(await context.state.get(key))) await context.state.set(key, pending);
      activity = consentCard(file, key);
    } else activity = fileLink(file);
    const id = await this.#post(thread, options.meta, activity);
    return id ? { messageId: id } : {};
  }

  async requestDecision(request: InteractionRequest, _options: SendOptions): Promise<SendResult | undefined> {
    // A click cannot carry replacement arguments, so `edit` gets no action.
    const card = approvalCard(request.requestId, request.prompt, request.allowedDecisions);
    const id = await this.#post(request.thread, request.meta, card);
    return id ? { messageId: id } : {};
  }

  async onDecided(notice: DecidedNotice, _options: SendOptions): Promise<void> {
    const context = this.#ready();
    if (!notice.requestMessageId) return;
    const prompt = (await context.interaction(notice.requestId))?.prompt ?? "Approval request";
    const by = notice.decidedBy.startsWith("session:")
      ? notice.decidedBy.slice("session:".length)
      : "decided";
    const card = decidedCard(prompt, notice.decision, notice.reason ? `${by}: ${notice.reason}` : by);
    const serviceUrl = await this.#serviceUrl(notice.thread, notice.meta);
    await connectorCall(this.#token as BotToken, serviceUrl, notice.thread, card, {
      activityId: notice.requestMessageId,
      signal: this.life.signal,
    });
  }

  #ready(): GatewayContext {
    if (!this.life.context || !this.#token) throw new Error("teams gateway is not started");
    return this.life.context;
  }

  async #serviceUrl(conversationId: string, meta: Record<string, unknown> | undefined): Promise<string> {
    // The activity's own serviceUrl is authoritative; the configured one only covers conversations not heard from.
    const known = str(meta?.serviceUrl) ?? (await this.#ready().state.get<string>(`svc:${conversationId}`));
    return known ?? this.#options.serviceUrl ?? DEFAULT_SERVICE_URL;
  }

  async #post(
    conversationId: string,
    meta: Record<string, unknown> | undefined,
    activity: Json,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    this.#ready();
    const serviceUrl = await this.#serviceUrl(conversationId, meta);
    // Aborted at stop, and by the caller's own signal (a preview update the session gave up on).
    return connectorCall(this.#token as BotToken, serviceUrl, conversationId, activity, {
      signal: signal ? AbortSignal.any([this.life.signal, signal]) : this.life.signal,
      tokenSignal: this.life.signal,
    });
  }

  async #click(c: TeamsClick, context: GatewayContext): Promise<WebhookResponse | undefined> {
    const answer = (text: string) => (c.via === "invoke" ? invokeAnswer(text) : undefined);
    if (!c.chosen) return answer("This action is not one this bot knows.");
    const result = await context.decide(c.chosen.requestId, { decision: c.chosen.decision }, c.authorId);
    if (result.ok) return answer(`Recorded: ${result.decision}.`);
    context.logger.info({ requestId: c.chosen.requestId, reason: result.code }, "card decision not applied");
    return answer(
      result.code === "already_decided"
        ? "This request was already decided."
        : "This decision could not be applied.",
    );
  }

  /**
   * Allow on a consent card: the file's bytes into the user's OneDrive upload session, then the file
   * info card in the chat, once (a second Allow finds it uploaded). Deny forgets the file. A card
   * this bot did not send, or sent to another conversation, uploads nothing. Teams waits for the
   * answer, and shows an error when it is not 200, so a failed upload can be allowed again.
   */
  async #consent(c: TeamsConsent, context: GatewayContext): Promise<WebhookResponse> {
    const ok: WebhookResponse = { status: 200 };
    const pending = c.key ? await context.state.get<PendingFile>(c.key) : undefined;
    if (!c.key || !pending || pending.conversationId !== c.conversationId) {
      context.logger.info({ conversation: c.conversationId }, "file consent for no file of this chat");
      return ok;
    }
    if (c.action === "decline") {
      await context.state.delete(c.key);
      return ok;
    }
    if (pending.uploaded) return ok;
    const info = c.uploadInfo;
    const connectorHost = new URL(await this.#serviceUrl(c.conversationId, undefined)).host;
    if (!info || !uploadHostAllowed(info.uploadUrl, connectorHost)) {
      context.logger.warn(
        { conversation: c.conversationId },
        "file consent refused: upload URL off OneDrive",
      );
      return { status: 400 };
    }
    const bytes = await context.blobs?.read(pending.blob);
    if (!bytes) {
      await context.state.delete(c.key);
      await this.#post(c.conversationId, undefined, {
        type: "message",
        text: `The file ${pending.name} is no longer stored.`,
      });
      return ok;
    }
    await uploadToSession(info.uploadUrl, bytes, this.life.signal);
    await this.#post(c.conversationId, undefined, fileInfoCard(info));
    await context.state.set(c.key, { ...pending, uploaded: true });
    return ok;
  }

  async #message(m: TeamsMessage, context: GatewayContext): Promise<void> {
    await context.state.set(`svc:${m.conversationId}`, m.serviceUrl);
    // Files are stored (or refused) before deliver, whose inbox record keeps the refs; the activity
    // is acknowledged only after, so a failed download is sent again by the connector and a stored
    // one is not fetched twice.
    const attachments: AttachmentRef[] = [];
    const access = {
      serviceUrl: m.serviceUrl,
      token: () => (this.#token as BotToken).get(this.life.signal),
      tokenRefused: () => this.#token?.invalidate(),
    };
    for (const file of m.files)
      attachments.push(await downloadFile(context, file, this.#options.media, access));
    const result = await context.deliver({
      ...(attachments.length > 0 ? { attachments } : {}),
      // The activity id: a body sent again (even under a new token) is one message.
      dedupKey: m.id,
      thread: m.conversationId,
      text: m.text,
      author: m.author,
      // A reply in a channel thread carries `;messageid=...`: the group is the channel itself.
      chat: {
        type: m.conversationType === "personal" ? "direct" : "group",
        id: m.conversationId.split(";")[0] ?? m.conversationId,
      },
      meta: { serviceUrl: m.serviceUrl, activityId: m.id, conversationType: m.conversationType },
    });
    if (!result.accepted) context.logger.debug({ id: m.id }, "duplicate delivery acknowledged");
  }
}

export const createGateway: GatewayFactory<TeamsGatewayOptions> = (options) => new TeamsGateway(options);
