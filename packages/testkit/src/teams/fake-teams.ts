// A fake Microsoft Teams / Bot Framework: the connector's conversation-activities routes a bot
// replies through (bearer token from the fake token endpoint), the identity endpoints (OpenID
// configuration, JWKS, OAuth2 token), and the connector's side of the bot's messaging endpoint:
// activities POSTed with a signed JWT, and Adaptive Card clicks as `adaptiveCard/action` invokes.
import { randomBytes, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { answerJson, callWebhook, expectAcknowledged, readBody, type WebhookAnswer } from "../http-util.js";
import { HttpFake } from "../http-fake.js";
import {
  CONNECTOR_ISSUER,
  CONNECTOR_SCOPE,
  type ConnectorKey,
  connectorKey,
  connectorToken,
  IssuedTokens,
  type TokenClaims,
} from "./bot-framework-auth.js";

export interface FakeTeamsOptions {
  appId: string;
  appPassword: string;
  /** Tenant in the token endpoint path. Default `botframework.com`. */
  tenantId?: string;
  webhookUrl?: string;
  /** Lifetime of issued outbound tokens. Default 3600 s. */
  tokenLifetimeSeconds?: number;
}

export interface TeamsUser {
  id: string;
  name?: string;
  aadObjectId?: string;
}

/** An activity the bot sent or updated through the connector. */
export interface TeamsSent {
  id: string;
  conversationId: string;
  text: string;
  /** Adaptive Card actions: title, verb (Action.Execute) and data. */
  actions: { title: string; verb?: string; data: Record<string, unknown> }[];
  activity: Record<string, unknown>;
  /** Times it was replaced through PUT. */
  updates: number;
}

type Json = Record<string, unknown>;

/** One streamed reply (https://learn.microsoft.com/microsoftteams/platform/bots/streaming-ux). */
export interface TeamsStream {
  conversationId: string;
  streamId: string;
  /** Every accepted streaming update: its sequence number and the text it showed. */
  updates: { sequence: number; text: string; at: number }[];
  /** The final message's text, once sent. */
  final?: string;
  /** When Teams ended the stream at its time limit (`streamTimeLimitMs`), ms epoch. */
  timedOutAt?: number;
}

/** A file the fake hosts for the bot to fetch: a personal chat's file share or a pasted picture. */
interface HostedFile {
  bytes: Buffer;
  /** `share`: a pre-authenticated OneDrive download link; `inline`: on the connector, bot token needed. */
  via: "share" | "inline";
  tempauth?: string;
  expiresAt?: number;
}

/** A OneDrive upload session the fake opened for an Allowed consent card, and what was PUT into it. */
export interface TeamsUpload {
  name: string;
  size: number;
  bytes: Buffer;
  complete: boolean;
  /** The consent card's activity id. */
  cardId: string;
}

const TEAMS_FILE_DOWNLOAD_INFO = "application/vnd.microsoft.teams.file.download.info";
const TEAMS_FILE_CONSENT = "application/vnd.microsoft.teams.card.file.consent";

export class FakeTeams extends HttpFake {
  readonly sent: TeamsSent[] = [];
  /** How often each hosted file was fetched successfully, by its id. */
  readonly fileFetches = new Map<string, number>();
  /** Every request for a hosted file: its path and the Authorization header it carried. */
  readonly fileRequests: { path: string; authorization: string | undefined; status: number }[] = [];
  /** Upload sessions by id (see `allowFile`). */
  readonly uploads = new Map<string, TeamsUpload>();
  readonly #files = new Map<string, HostedFile>();
  readonly streams: TeamsStream[] = [];
  /** Streaming activities refused, with the reason (a test that follows the rules expects none). */
  readonly streamRefusals: string[] = [];
  /** Conversation id -> its conversationType, as the fake's own activities named it. */
  readonly #types = new Map<string, string>();
  /** Calls to the connector's activity routes, failed ones included. */
  calls = 0;
  /**
   * Off by default. On: a conversation none of this fake's activities came from is one the bot is
   * not a member of, refused with 403 BotNotInConversationRoster
   * (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/build-conversational-capability#status-codes-from-bot-conversational-apis).
   */
  rosterOnly = false;
  openIdFetches = 0;
  keyFetches = 0;
  tokenRequests = 0;
  webhookUrl: string;
  readonly #tokens = new IssuedTokens();
  readonly #options: Required<Omit<FakeTeamsOptions, "webhookUrl">>;
  /** The key tokens are signed with; always one of `#published`. */
  #key!: ConnectorKey;
  /** The keys the JWKS endpoint lists right now. */
  #published: ConnectorKey[] = [];
  #secretRevoked = false;
  /** The JWKS endpoint answers 503 while set (an outage of Microsoft's key endpoint). */
  keySetUnavailable = false;
  /**
   * Teams ends a stream not finished within two minutes: every later update and the final message
   * get 403 `ContentStreamNotAllowed` "Content stream finished due to exceeded streaming time."
   * (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/streaming-ux, error codes).
   * Shorten it to test that without waiting two minutes.
   */
  streamTimeLimitMs = 120_000;
  /** While set, streaming updates are held unanswered (a hung connector call) and listed in `heldUpdates`. */
  holdStreamUpdates = false;
  /** Streaming updates held by `holdStreamUpdates`; `abandoned` once the caller closed the request. */
  readonly heldUpdates: { conversationId: string; text: string; abandoned: boolean }[] = [];

  private constructor(options: FakeTeamsOptions) {
    super();
    this.#options = { tenantId: "botframework.com", tokenLifetimeSeconds: 3600, ...options };
    this.webhookUrl = options.webhookUrl ?? "";
  }

  static async start(options: FakeTeamsOptions): Promise<FakeTeams> {
    const fake = new FakeTeams(options);
    fake.#key = await connectorKey();
    fake.#published = [fake.#key];
    await fake.listen();
    return fake;
  }

  /** The gateway's `openIdMetadataUrl`. */
  get openIdMetadataUrl(): string {
    return `${this.url}/v1/.well-known/openidconfiguration`;
  }
  /** The gateway's `loginBaseUrl` (token URL = <this>/<tenant>/oauth2/v2.0/token). */
  get loginBaseUrl(): string {
    return `${this.url}/login`;
  }
  /** The `serviceUrl` activities carry (with the trailing slash the real one has). */
  get serviceUrl(): string {
    return `${this.url}/amer/`;
  }

  set tokenLifetimeSeconds(seconds: number) {
    this.#options.tokenLifetimeSeconds = seconds;
  }

  /**
   * The app's client secret is deleted or expired: the token endpoint answers 401 `invalid_client`
   * (AADSTS7000222) from now on. Access tokens issued before keep working until they expire, as on Entra ID.
   */
  revokeSecret(): void {
    this.#secretRevoked = true;
  }

  /**
   * The connector stops taking every bot token issued so far (401), as when a token is revoked or
   * expires early; the token endpoint keeps issuing new ones.
   */
  revokeIssuedTokens(): void {
    this.#tokens.revokeAll();
  }

  /** The key the connector signs with now. */
  get signingKey(): ConnectorKey {
    return this.#key;
  }

  /**
   * Microsoft rotates the connector's signing keys while bots run: a new `kid` appears in the key
   * set and the old one is withdrawn (the bot must fetch the key set again; see "Connector to bot"
   * in https://learn.microsoft.com/en-us/azure/bot-service/rest-api/bot-framework-rest-connector-authentication).
   * Publishes a new key, signs with it from now on and, unless `keepOld`, withdraws the others.
   */
  async rotateKey(options: { keepOld?: boolean } = {}): Promise<ConnectorKey> {
    const next = await connectorKey();
    this.#published = options.keepOld ? [...this.#published, next] : [next];
    this.#key = next;
    return next;
  }

  /** A connector JWT for this app; override claims to forge bad ones. */
  token(claims: Partial<TokenClaims> = {}, key: ConnectorKey = this.#key): Promise<string> {
    return connectorToken(key, { appId: this.#options.appId, serviceUrl: this.serviceUrl, ...claims });
  }

  /**
   * A file a user shares in a personal chat: Teams puts it in their OneDrive and the activity carries
   * `application/vnd.microsoft.teams.file.download.info` whose `content.downloadUrl` is a
   * pre-authenticated, short-lived link (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/bots-filesv4,
   * "Receive files in personal chat"). The link answers 401 once `expiresInMs` has passed.
   */
  fileShare(bytes: Buffer, input: { name: string; fileType?: string; expiresInMs?: number }): Json {
    const id = randomUUID().toUpperCase();
    const tempauth = randomBytes(12).toString("hex");
    this.#files.set(id, {
      bytes,
      via: "share",
      tempauth,
      ...(input.expiresInMs !== undefined ? { expiresAt: Date.now() + input.expiresInMs } : {}),
    });
    const fileType = input.fileType ?? input.name.split(".").pop() ?? "";
    return {
      contentType: TEAMS_FILE_DOWNLOAD_INFO,
      contentUrl: `${this.url}/personal/alice/Documents/Microsoft%20Teams%20Chat%20Files/${encodeURIComponent(input.name)}`,
      name: input.name,
      content: {
        downloadUrl: `${this.url}/personal/alice/_layouts/15/download.aspx?UniqueId=${id}&tempauth=${tempauth}`,
        uniqueId: id,
        fileType,
      },
    };
  }

  /**
   * A picture pasted into the compose box: an `image/*` attachment whose `contentUrl` is on the Bot
   * Connector service and is fetched with the bot's token ("Basic inline images" in the page above);
   * without a valid token the connector answers 401.
   */
  inlinePicture(bytes: Buffer): Json {
    const id = `0-eus-d1-${randomBytes(16).toString("hex")}`;
    this.#files.set(id, { bytes, via: "inline" });
    return { contentType: "image/*", contentUrl: `${this.serviceUrl}v3/attachments/${id}/views/original` };
  }

  /**
   * The user presses Allow on the file consent card `activityId`: the fake opens an upload session in
   * the user's OneDrive and sends the bot a `fileConsent/invoke` with the card's acceptContext and
   * `uploadInfo` (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/bots-filesv4,
   * "Send files to personal chat"). Deny sends the declineContext and no upload session.
   */
  answerConsent(activityId: string, from: TeamsUser, action: "accept" | "decline"): Promise<WebhookAnswer> {
    const card = this.sent.find((s) => s.id === activityId);
    const attachments = (card?.activity.attachments ?? []) as {
      contentType?: string;
      name?: string;
      content?: Json;
    }[];
    const consent = attachments.find((a) => a.contentType === TEAMS_FILE_CONSENT);
    if (!card || !consent) throw new Error(`fake teams: no file consent card ${activityId}`);
    const name = String(consent.name ?? "file");
    const value: Json = {
      type: "fileUpload",
      action,
      context: (action === "accept" ? consent.content?.acceptContext : consent.content?.declineContext) ?? {},
    };
    if (action === "accept") {
      const session = randomBytes(8).toString("hex");
      const size = Number(consent.content?.sizeInBytes ?? 0);
      this.uploads.set(session, { name, size, bytes: Buffer.alloc(0), complete: false, cardId: activityId });
      value.uploadInfo = {
        contentUrl: `${this.url}/personal/alice/Documents/Applications/${encodeURIComponent(name)}`,
        name,
        uploadUrl: `${this.url}/upload-session/${session}`,
        uniqueId: randomUUID().toUpperCase(),
        fileType: name.includes(".") ? name.split(".").pop() : "",
        etag: `"{${randomUUID().toUpperCase()}},1"`,
      };
    }
    const invoke: Json = {
      ...this.messageActivity({ conversationId: card.conversationId, from, text: "" }),
      type: "invoke",
      name: "fileConsent/invoke",
      replyToId: activityId,
      value,
    };
    delete invoke.text;
    return this.deliver(invoke);
  }

  /** A personal-chat message activity from `from` in conversation `conversationId`. */
  messageActivity(input: {
    conversationId: string;
    from: TeamsUser;
    text: string;
    id?: string;
    conversationType?: string;
    /** Files (`fileShare`, `inlinePicture`) or any documented attachment. */
    attachments?: Json[];
  }): Json {
    this.#types.set(input.conversationId, input.conversationType ?? "personal");
    return {
      type: "message",
      id: input.id ?? `1${randomBytes(6).toString("hex")}`,
      timestamp: new Date().toISOString(),
      serviceUrl: this.serviceUrl,
      channelId: "msteams",
      from: input.from,
      conversation: {
        id: input.conversationId,
        conversationType: input.conversationType ?? "personal",
        tenantId: "tenant-1",
      },
      recipient: { id: `28:${this.#options.appId}`, name: "agentsvc" },
      text: input.text,
      textFormat: "plain",
      ...(input.attachments ? { attachments: input.attachments } : {}),
      channelData: { tenant: { id: "tenant-1" } },
    };
  }

  /** Delivers an activity with a valid connector token (or the `authorization` given). */
  async deliver(activity: Json | string, authorization?: string): Promise<WebhookAnswer> {
    const body = typeof activity === "string" ? activity : JSON.stringify(activity);
    const auth = authorization ?? `Bearer ${await this.token()}`;
    return callWebhook(this.webhookUrl, body, {
      "content-type": "application/json",
      ...(auth ? { authorization: auth } : {}),
    });
  }

  deliverMessage(input: {
    conversationId: string;
    from: TeamsUser;
    text: string;
    id?: string;
    conversationType?: string;
  }): Promise<WebhookAnswer> {
    return this.deliver(this.messageActivity(input));
  }

  async deliverAcknowledged(activity: Json): Promise<WebhookAnswer> {
    return expectAcknowledged(await this.deliver(activity), "fake teams delivery");
  }

  /**
   * `from` clicks the action titled `title` on the card activity `activityId` the bot sent: an
   * `adaptiveCard/action` invoke. Throws if no such card or action was shown in that conversation.
   */
  click(activityId: string, title: string, from: TeamsUser): Promise<WebhookAnswer> {
    const card = this.sent.find((s) => s.id === activityId);
    const action = card?.actions.find((a) => a.title === title);
    if (!card || !action) throw new Error(`fake teams: no action "${title}" on activity ${activityId}`);
    const invoke = {
      ...this.messageActivity({ conversationId: card.conversationId, from, text: "" }),
      type: "invoke",
      name: "adaptiveCard/action",
      replyToId: activityId,
      value: { action: { type: "Action.Execute", verb: action.verb, data: action.data }, trigger: "manual" },
    };
    delete (invoke as Json).text;
    return this.deliver(invoke);
  }

  protected async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (req.method === "GET" && path === "/v1/.well-known/openidconfiguration") {
      this.openIdFetches += 1;
      return answerJson(res, 200, {
        issuer: CONNECTOR_ISSUER,
        authorization_endpoint: `${this.url}/v1/.well-known/authorize`,
        jwks_uri: `${this.url}/v1/.well-known/keys`,
        id_token_signing_alg_values_supported: ["RS256"],
        token_endpoint_auth_methods_supported: ["private_key_jwt"],
      });
    }
    if (req.method === "GET" && path === "/v1/.well-known/keys") {
      this.keyFetches += 1;
      if (this.keySetUnavailable) return answerJson(res, 503, { error: "ServiceUnavailable" });
      return answerJson(res, 200, { keys: this.#published.map((k) => k.jwk) });
    }
    if (req.method === "POST" && path === `/login/${this.#options.tenantId}/oauth2/v2.0/token`)
      return this.#issueToken(raw, res);
    if (req.method === "GET" && (path.endsWith("/download.aspx") || path.startsWith("/amer/v3/attachments/")))
      return this.#serveFile(req, res);
    const upload = /^\/upload-session\/([^/]+)$/.exec(path);
    if (req.method === "PUT" && upload) return this.#upload(upload[1] as string, req, raw, res);
    const m = /^\/amer\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/.exec(path);
    if (!m || (req.method !== "POST" && req.method !== "PUT"))
      return answerJson(res, 404, { error: { code: "NotFound", message: path } });
    this.calls += 1;
    if (!this.#tokens.valid(req.headers.authorization))
      return answerJson(res, 401, { message: "Authorization has been denied for this request." });
    if (
      this.failures.answer(res, (status) => ({
        error: { code: status === 429 ? "Throttled" : "ServiceError", message: `injected ${status}` },
      }))
    )
      return;
    if (raw.length > 28_000)
      return answerJson(res, 413, { error: { code: "MessageSizeTooBig", message: "Message size too big" } });
    const activity = JSON.parse(raw.toString("utf8")) as Json;
    const conversationId = decodeURIComponent(m[1] as string);
    if (this.rosterOnly && !this.#types.has(conversationId))
      return answerJson(res, 403, {
        error: {
          code: "BotNotInConversationRoster",
          message: "The bot is not part of the conversation roster.",
        },
      });
    if (req.method === "PUT") {
      const existing = this.sent.find((s) => s.id === m[2] && s.conversationId === conversationId);
      if (!existing)
        return answerJson(res, 404, { error: { code: "ActivityNotFound", message: "no such activity" } });
      Object.assign(existing, readActivity(activity), { updates: existing.updates + 1 });
      return answerJson(res, 200, { id: existing.id });
    }
    const info = streamInfo(activity);
    if (info) return this.#stream(res, conversationId, activity, info);
    const id = `1${randomBytes(6).toString("hex")}`;
    this.sent.push({ id, conversationId, ...readActivity(activity), updates: 0 });
    answerJson(res, 201, { id });
  }

  /**
   * Teams' streaming protocol: only in one-on-one chats, one stream per chat at a time; the first
   * `typing` update (sequence 1, no streamId) starts a stream whose id is the activity id returned;
   * each later update names that streamId with a larger streamSequence and text that contains what
   * was streamed before ("the bot message must contain previous streaming content"); a `message`
   * with streamType `final` ends it and becomes the message the user keeps.
   */
  #stream(res: ServerResponse, conversationId: string, activity: Json, info: Json) {
    const refuse = (why: string) => {
      this.streamRefusals.push(why);
      answerJson(res, 400, { error: { code: "BadArgument", message: why } });
    };
    if ((this.#types.get(conversationId) ?? "personal") !== "personal")
      return refuse("streaming is supported only in one-on-one chats");
    const text = typeof activity.text === "string" ? activity.text : "";
    const streamId = typeof info.streamId === "string" ? info.streamId : undefined;
    const live = this.streams.find(
      (s) => s.conversationId === conversationId && s.final === undefined && !this.#timedOut(s),
    );
    const stream = this.streams.find((s) => s.streamId === streamId && s.conversationId === conversationId);
    if (stream && stream.final === undefined && this.#timedOut(stream)) {
      this.streamRefusals.push("the stream exceeded its streaming time");
      return answerJson(res, 403, {
        error: {
          code: "ContentStreamNotAllowed",
          message: "Content stream finished due to exceeded streaming time.",
        },
      });
    }
    if (info.streamType === "final") {
      if (!stream || activity.type !== "message") return refuse("final message of an unknown stream");
      if (stream.final !== undefined) return refuse("the stream has already ended");
      stream.final = text;
      this.sent.push({ id: stream.streamId, conversationId, ...readActivity(activity), updates: 0 });
      return answerJson(res, 201, { id: stream.streamId });
    }
    if (activity.type !== "typing") return refuse("streaming updates are typing activities");
    if (this.holdStreamUpdates) {
      const held = {
        conversationId,
        text: typeof activity.text === "string" ? activity.text : "",
        abandoned: false,
      };
      this.heldUpdates.push(held);
      res.on("close", () => {
        held.abandoned = !res.writableEnded;
      });
      return;
    }
    const sequence = Number(info.streamSequence);
    if (!text) return refuse("a streaming update carries text");
    if (!streamId) {
      if (live) return refuse("only one stream per chat at a time");
      if (sequence !== 1) return refuse("the first streaming update has streamSequence 1");
      const id = `1${randomBytes(6).toString("hex")}`;
      this.streams.push({ conversationId, streamId: id, updates: [{ sequence, text, at: Date.now() }] });
      return answerJson(res, 201, { id });
    }
    if (!live || live.streamId !== streamId) return refuse("no such stream in progress");
    const last = live.updates.at(-1) as { sequence: number; text: string };
    if (!(sequence > last.sequence)) return refuse("streamSequence must increase");
    if (!text.startsWith(last.text)) return refuse("content should contain previously streamed content");
    live.updates.push({ sequence, text, at: Date.now() });
    answerJson(res, 201, { id: `1${randomBytes(6).toString("hex")}` });
  }

  #serveFile(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://x");
    const authorization = req.headers.authorization;
    const answer = (status: number, body?: Buffer) => {
      this.fileRequests.push({ path: url.pathname, authorization, status });
      if (body)
        res
          .writeHead(status, { "content-type": "application/octet-stream", "content-length": body.length })
          .end(body);
      else
        answerJson(res, status, {
          error: { code: status === 401 ? "Unauthorized" : "NotFound", message: "" },
        });
    };
    const inline = /^\/amer\/v3\/attachments\/([^/]+)\/views\/original$/.exec(url.pathname)?.[1];
    const id = inline ?? url.searchParams.get("UniqueId") ?? "";
    const file = this.#files.get(id);
    if (!file || file.via !== (inline ? "inline" : "share")) return answer(404);
    if (file.via === "inline" && !this.#tokens.valid(authorization)) return answer(401);
    if (file.via === "share") {
      // Pre-authenticated: the tempauth in the link is the credential, and it expires.
      if (url.searchParams.get("tempauth") !== file.tempauth) return answer(401);
      if (file.expiresAt !== undefined && Date.now() > file.expiresAt) return answer(401);
    }
    this.fileFetches.set(id, (this.fileFetches.get(id) ?? 0) + 1);
    answer(200, file.bytes);
  }

  /**
   * A OneDrive upload session (https://learn.microsoft.com/en-us/graph/api/driveitem-createuploadsession):
   * PUTs with `Content-Range: bytes <start>-<end>/<total>` in order; 202 with nextExpectedRanges
   * until the last byte, then 201 with the driveItem. A range out of order is 416.
   */
  #upload(session: string, req: IncomingMessage, raw: Buffer, res: ServerResponse) {
    const up = this.uploads.get(session);
    if (!up || up.complete)
      return answerJson(res, 404, { error: { code: "itemNotFound", message: "no such session" } });
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers["content-range"] ?? ""));
    const [start, end, total] = (range?.slice(1) ?? []).map(Number) as [number, number, number];
    if (!range || start !== up.bytes.length || end - start + 1 !== raw.length || total !== up.size)
      return answerJson(res, 416, { error: { code: "invalidRange", message: "range not expected" } });
    up.bytes = Buffer.concat([up.bytes, raw]);
    if (up.bytes.length < up.size)
      return answerJson(res, 202, { nextExpectedRanges: [`${up.bytes.length}-`] });
    up.complete = true;
    answerJson(res, 201, { id: session, name: up.name, size: up.size });
  }

  /** True once the stream is older than the limit (and from then on ended for good). */
  #timedOut(stream: TeamsStream): boolean {
    if (stream.timedOutAt === undefined && Date.now() - (stream.updates[0]?.at ?? 0) > this.streamTimeLimitMs)
      stream.timedOutAt = Date.now();
    return stream.timedOutAt !== undefined;
  }

  #issueToken(raw: Buffer, res: ServerResponse): void {
    this.tokenRequests += 1;
    const form = new URLSearchParams(raw.toString("utf8"));
    // Entra ID's answers (https://learn.microsoft.com/en-us/entra/identity-platform/reference-error-codes):
    // an unknown app id is 400 unauthorized_client (AADSTS700016), a wrong secret 401 invalid_client (AADSTS7000215).
    if (form.get("client_id") !== this.#options.appId) {
      answerJson(res, 400, {
        error: "unauthorized_client",
        error_description: `AADSTS700016: Application with identifier '${form.get("client_id")}' was not found in the directory 'Bot Framework'.`,
        error_codes: [700016],
      });
      return;
    }
    const ok =
      form.get("grant_type") === "client_credentials" &&
      form.get("client_secret") === this.#options.appPassword &&
      form.get("scope") === CONNECTOR_SCOPE;
    if (!ok || this.#secretRevoked) {
      answerJson(res, 401, {
        error: "invalid_client",
        error_description: this.#secretRevoked
          ? "AADSTS7000222: The provided client secret keys for app are expired."
          : "AADSTS7000215: Invalid client secret provided.",
        error_codes: [this.#secretRevoked ? 7000222 : 7000215],
      });
      return;
    }
    const lifetime = this.#options.tokenLifetimeSeconds;
    answerJson(res, 200, {
      token_type: "Bearer",
      expires_in: lifetime,
      ext_expires_in: lifetime,
      access_token: this.#tokens.issue(lifetime),
    });
  }
}

function streamInfo(activity: Json): Json | undefined {
  const entities = Array.isArray(activity.entities) ? (activity.entities as Json[]) : [];
  return entities.find((e) => e.type === "streaminfo");
}

function readActivity(activity: Json): { text: string; actions: TeamsSent["actions"]; activity: Json } {
  const cards = (Array.isArray(activity.attachments) ? activity.attachments : []) as {
    contentType?: string;
    content?: Json;
  }[];
  const card = cards.find((a) => a.contentType === "application/vnd.microsoft.card.adaptive")?.content;
  const actions = ((card?.actions ?? []) as { title?: string; verb?: string; data?: Json }[]).map((a) => ({
    title: String(a.title ?? ""),
    ...(a.verb ? { verb: a.verb } : {}),
    data: a.data ?? {},
  }));
  const cardText = ((card?.body ?? []) as { text?: string }[]).map((b) => b.text ?? "").join("\n");
  return { text: typeof activity.text === "string" ? activity.text : cardText, actions, activity };
}

export { connectorKey, type ConnectorKey } from "./bot-framework-auth.js";
export const newConversationId = () => `a:1${randomUUID().replaceAll("-", "")}`;
