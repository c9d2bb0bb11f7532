// The `teams` push-style gateway (Microsoft Teams through the Bot Framework). Inbound: the
// connector POSTs activities to /webhooks/teams with a signed JWT; message and card-click invoke
// activities in personal chats are handled. Outbound: the connector's conversation-activities
// routes with an OAuth2 client-credentials token. Approvals: an Adaptive Card, updated once decided.
import type { DecisionKind } from "@agentsvc/agent-core";
import type {
  DecidedNotice,
  Gateway,
  GatewayCapabilities,
  GatewayContext,
  InteractionRequest,
  SendOptions,
  SendResult,
  WebhookRequest,
  WebhookResponse,
  WebhookRoute,
} from "@agentsvc/session-core";
import { approvalCard, clickedDecision, decidedCard } from "./approval-card.js";
import { BotToken } from "./bot-token.js";
import { ConnectorAuth } from "./connector-auth.js";
import { connectorCall } from "./connector-client.js";
import { readSecrets, plainResponse } from "@agentsvc/webhook-kit";

export const DEFAULT_TENANT_ID = "botframework.com";
export const DEFAULT_OPENID_METADATA_URL =
  "https://login.botframework.com/v1/.well-known/openidconfiguration";
export const DEFAULT_LOGIN_BASE_URL = "https://login.microsoftonline.com";
/** Microsoft's global connector URL for proactive messages. */
export const DEFAULT_SERVICE_URL = "https://smba.trafficmanager.net/teams/";
export const TEXT_LIMIT = 4000;

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
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" ? v : undefined);
/** An invoke answer Teams shows as a toast and does not retry. */
const invokeAnswer = (message: string): WebhookResponse => ({
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    statusCode: 200,
    type: "application/vnd.microsoft.activity.message",
    value: message,
  }),
});

export class TeamsGateway implements Gateway {
  readonly kind = "push" as const;
  readonly type = "teams";
  readonly name = "teams";
  readonly capabilities: GatewayCapabilities = { threads: true, interactiveActions: true };
  readonly messageLimit = TEXT_LIMIT;
  readonly webhooks: readonly WebhookRoute[];
  readonly #options: TeamsGatewayOptions;
  #context: GatewayContext | undefined;
  #auth: ConnectorAuth | undefined;
  #token: BotToken | undefined;
  #abort = new AbortController();

  constructor(options: TeamsGatewayOptions) {
    this.#options = options;
    this.webhooks = [{ method: "POST", handle: (req) => this.#activity(req) }];
  }

  async start(context: GatewayContext): Promise<void> {
    const o = this.#options;
    const { appId, appPassword } = readSecrets(
      context,
      { appId: o.appIdEnvVar, appPassword: o.appPasswordEnvVar },
      o.env,
    );
    const tenant = o.tenantId ?? DEFAULT_TENANT_ID;
    const login = (o.loginBaseUrl ?? DEFAULT_LOGIN_BASE_URL).replace(/\/+$/, "");
    // Both live as long as this instance: the key set and the token are cached in them.
    this.#auth = new ConnectorAuth(o.openIdMetadataUrl ?? DEFAULT_OPENID_METADATA_URL, appId);
    this.#token = new BotToken(
      `${login}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`,
      appId,
      appPassword,
    );
    this.#abort = new AbortController();
    this.#context = context;
  }

  async stop(): Promise<void> {
    this.#context = undefined;
    this.#abort.abort();
  }

  async send(thread: string, text: string, options: SendOptions): Promise<SendResult | undefined> {
    const id = await this.#post(thread, options.meta, { type: "message", text, textFormat: "markdown" });
    return id ? { messageId: id } : {};
  }

  async requestDecision(request: InteractionRequest, _options: SendOptions): Promise<SendResult | undefined> {
    // A click cannot carry replacement arguments, so `edit` gets no action.
    const clickable = request.allowedDecisions.filter((d) => d !== "edit");
    const decisions = clickable.length > 0 ? clickable : request.allowedDecisions;
    const id = await this.#post(
      request.thread,
      request.meta,
      approvalCard(request.requestId, request.prompt, decisions),
    );
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
      signal: this.#abort.signal,
    });
  }

  #ready(): GatewayContext {
    if (!this.#context || !this.#token) throw new Error("teams gateway is not started");
    return this.#context;
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
  ): Promise<string | undefined> {
    this.#ready();
    const serviceUrl = await this.#serviceUrl(conversationId, meta);
    return connectorCall(this.#token as BotToken, serviceUrl, conversationId, activity, {
      signal: this.#abort.signal,
    });
  }

  async #activity(req: WebhookRequest): Promise<WebhookResponse> {
    const context = this.#context;
    const auth = this.#auth;
    if (!context || !auth) return plainResponse(503);
    const verdict = await auth.verify(req.headers.authorization);
    if (!verdict.ok) {
      context.logger.warn({ reason: verdict.reason, detail: verdict.detail }, "webhook token rejected");
      return plainResponse(401);
    }
    let activity: Json;
    try {
      const parsed: unknown = JSON.parse(Buffer.from(req.rawBody).toString("utf8"));
      if (!isObject(parsed)) throw new Error("not an object");
      activity = parsed;
    } catch {
      context.logger.warn("authenticated request with a body that is not an activity; ignored");
      return plainResponse(400);
    }
    const mismatch = auth.matches(verdict.token, activity);
    if (mismatch) {
      context.logger.warn({ reason: mismatch }, "webhook token rejected");
      return plainResponse(401);
    }
    const conversation = isObject(activity.conversation) ? activity.conversation : {};
    const from = isObject(activity.from) ? activity.from : {};
    const conversationId = str(conversation.id);
    const authorId = str(from.aadObjectId) ?? str(from.id);
    if (conversation.conversationType !== "personal" || !conversationId || !authorId) {
      context.logger.debug(
        { type: activity.type, scope: conversation.conversationType },
        "activity outside a personal chat; ignored",
      );
      return activity.type === "invoke"
        ? invokeAnswer("This bot only works in personal chats.")
        : plainResponse(200);
    }
    try {
      if (activity.type === "invoke" && activity.name === "adaptiveCard/action")
        return await this.#click(context, activity, authorId);
      if (activity.type === "message")
        return await this.#message(context, activity, conversationId, authorId, str(from.name));
    } catch (err) {
      context.logger.error(
        { err, activityId: activity.id },
        "could not record an activity; answering 500 so the connector retries",
      );
      return plainResponse(500);
    }
    context.logger.debug({ type: activity.type, name: activity.name }, "activity ignored");
    return plainResponse(200);
  }

  async #click(context: GatewayContext, activity: Json, authorId: string): Promise<WebhookResponse> {
    const chosen = clickedDecision(activity.value);
    if (!chosen) return invokeAnswer("This action is not one this bot knows.");
    const result = await context.decide(
      chosen.requestId,
      { decision: chosen.decision as DecisionKind },
      authorId,
    );
    if (result.ok) return invokeAnswer(`Recorded: ${result.decision}.`);
    context.logger.info({ requestId: chosen.requestId, code: result.code }, "card decision not applied");
    return invokeAnswer(
      result.code === "already_decided"
        ? "This request was already decided."
        : "This decision could not be applied.",
    );
  }

  async #message(
    context: GatewayContext,
    activity: Json,
    conversationId: string,
    authorId: string,
    name: string | undefined,
  ): Promise<WebhookResponse> {
    const serviceUrl = str(activity.serviceUrl) as string;
    const chosen = clickedDecision(activity.value);
    if (chosen) {
      // An Action.Submit click from an older client arrives as a message with `value`.
      const result = await context.decide(
        chosen.requestId,
        { decision: chosen.decision as DecisionKind },
        authorId,
      );
      if (!result.ok)
        context.logger.info({ requestId: chosen.requestId, code: result.code }, "card decision not applied");
      return plainResponse(200);
    }
    const text = (str(activity.text) ?? "").replace(/<at>[^<]*<\/at>/g, "").trim();
    const id = str(activity.id);
    if (!text || !id) return plainResponse(200);
    await context.state.set(`svc:${conversationId}`, serviceUrl);
    const result = await context.deliver({
      dedupKey: id,
      thread: conversationId,
      text,
      author: { id: authorId, ...(name ? { displayName: name } : {}) },
      meta: { serviceUrl, activityId: id },
    });
    if (!result.accepted) context.logger.debug({ id }, "duplicate delivery acknowledged");
    return plainResponse(200);
  }
}

export function createTeamsGateway(options: TeamsGatewayOptions): TeamsGateway {
  return new TeamsGateway(options);
}
