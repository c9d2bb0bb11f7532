// The REST side of the Discord fake: channel messages, typing, interaction callbacks. Checked
// like Discord checks them (bot token, 2000 characters, components) and recorded.

export interface DiscordComponent {
  type: number;
  style?: number;
  label?: string;
  custom_id?: string;
  components?: DiscordComponent[];
}

/** A file the bot attached to a message (multipart `files[n]`, named in `payload_json.attachments`). */
export interface DiscordSentFile {
  filename: string;
  contentType: string;
  bytes: Buffer;
}

export interface DiscordBotMessage {
  id: string;
  channelId: string;
  content: string;
  attachments?: DiscordSentFile[];
  components?: DiscordComponent[];
  replyTo?: string;
  /** The create's `nonce`, when it carried one. */
  nonce?: string | number;
  /** When it was created (ms). */
  at: number;
  edits: number;
}

export type RestAnswer = { status: number; body: unknown; headers?: Record<string, string> };

const LIMIT = 2000;
/**
 * How long a nonce sent with `enforce_nonce: true` returns the message it first created. Create
 * Message (https://discord.com/developers/docs/resources/message#create-message) says "checked for
 * uniqueness in the past few minutes" and gives no figure; the fake takes two.
 */
const NONCE_WINDOW_MS = 2 * 60_000;
/** A nonce is an integer or a string of at most 25 characters (same page, JSON params). */
const NONCE_MAX = 25;
/**
 * Files a bot may attach to one message in a server without boosts. Discord's default has moved
 * (8, 25, then 10 MiB); the fake takes the lowest current one. Over it Discord answers 413 with
 * code 40005 "Request entity too large" (as reported in
 * https://github.com/discord/discord-api-docs/issues/6058).
 */
export const DISCORD_UPLOAD_LIMIT = 10 * 1024 * 1024;

interface UploadPart {
  name: string;
  type: string;
  bytes: Buffer;
}

/**
 * A multipart create (https://discord.com/developers/docs/reference#uploading-files): the JSON
 * params in `payload_json`, each file in `files[n]`, described by `attachments: [{ id: n, filename }]`.
 */
function filesOf(body: Record<string, unknown>): DiscordSentFile[] | RestAnswer {
  const parts = Object.entries(body).filter(([k]) => /^files\[\d+\]$/.test(k));
  if (parts.length === 0) return [];
  const described = (body.attachments ?? []) as { id?: unknown; filename?: string }[];
  const files: DiscordSentFile[] = [];
  let total = 0;
  for (const [key, value] of parts) {
    const part = value as UploadPart;
    const n = Number(key.slice(6, -1));
    const meta = described.find((a) => Number(a.id) === n);
    total += part.bytes.length;
    files.push({ filename: meta?.filename ?? part.name, contentType: part.type, bytes: part.bytes });
  }
  if (total > DISCORD_UPLOAD_LIMIT)
    return { status: 413, body: { code: 40005, message: "Request entity too large" } };
  return files;
}

const tooLong = (): RestAnswer => ({
  status: 400,
  body: {
    code: 50035,
    message: "Invalid Form Body",
    errors: {
      content: {
        _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: `Must be ${LIMIT} or fewer in length.` }],
      },
    },
  },
});

/**
 * Discord refuses a button whose custom_id is not 1-100 characters, or whose label is over 80
 * (https://discord.com/developers/docs/components/reference#button), and duplicate custom_ids.
 */
function componentError(rows: DiscordComponent[]): RestAnswer | false {
  const buttons = rows.flatMap((row) => row.components ?? []);
  const ids = buttons.flatMap((b) => (b.custom_id === undefined ? [] : [b.custom_id]));
  const bad =
    ids.some((id) => id.length < 1 || id.length > 100) ||
    buttons.some((b) => (b.label?.length ?? 0) > 80) ||
    new Set(ids).size !== ids.length;
  return bad
    ? { status: 400, body: { code: 50035, message: "Invalid Form Body", errors: { components: {} } } }
    : false;
}

/**
 * Message edits allowed per channel in a sliding window. Discord's limits are per route and per
 * top-level resource (the channel), answered with 429 and a JSON body whose `retry_after` is in
 * float seconds (https://docs.discord.com/developers/topics/rate-limits, "Exceeding A Rate Limit");
 * the figures themselves are not published and "should not be hard coded". 5 per 5 s is what the
 * edit route is commonly observed to allow (agentsvc issue #27); a test may change it.
 */
export interface EditRateLimit {
  edits: number;
  perMs: number;
}

function validNonce(nonce: unknown): boolean {
  return typeof nonce === "string" ? nonce.length <= NONCE_MAX : Number.isSafeInteger(nonce);
}

const invalidNonce = (): RestAnswer => ({
  status: 400,
  body: {
    code: 50035,
    message: "Invalid Form Body",
    errors: {
      nonce: {
        _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: `Must be ${NONCE_MAX} or fewer in length.` }],
      },
    },
  },
});

/** The created message as Create Message answers it (the fields a bot reads). */
function messageObject(msg: DiscordBotMessage, botUserId: string): Record<string, unknown> {
  return {
    id: msg.id,
    channel_id: msg.channelId,
    content: msg.content,
    author: { id: botUserId, bot: true },
    ...(msg.nonce !== undefined ? { nonce: msg.nonce } : {}),
    attachments: (msg.attachments ?? []).map((f, i) => ({
      id: `${msg.id}${i}`,
      filename: f.filename,
      size: f.bytes.length,
      content_type: f.contentType,
      url: `https://cdn.discordapp.com/attachments/${msg.channelId}/${msg.id}${i}/${f.filename}`,
    })),
  };
}

export class DiscordRest {
  readonly botMessages: DiscordBotMessage[] = [];
  editLimit: EditRateLimit = { edits: 5, perMs: 5_000 };
  /** Edits refused with 429 (a test that must never hit the limit expects none). */
  readonly rateLimited: { channelId: string; at: number; retryAfter: number }[] = [];
  /** Channel -> when its accepted edits were made. */
  readonly #edits = new Map<string, number[]>();
  readonly typing: { channelId: string; at: number }[] = [];
  /** Interaction id -> the callback the bot sent (undefined while unanswered). */
  readonly callbacks = new Map<
    string,
    { type: number; data?: Record<string, unknown>; at: number } | undefined
  >();
  /** Interaction id -> when it was created (a callback later than 3 s is refused). */
  readonly #interactionAt = new Map<string, { token: string; at: number; messageId?: string }>();

  /** Called for every message the bot creates (the fake echoes it on the gateway, as Discord does). */
  onCreate: ((msg: DiscordBotMessage) => void) | undefined;

  constructor(
    private readonly nextId: () => string,
    private readonly botUserId: string,
  ) {}

  /** Registers an interaction the gateway is about to dispatch. */
  interaction(id: string, token: string, messageId?: string): void {
    this.#interactionAt.set(id, { token, at: Date.now(), ...(messageId ? { messageId } : {}) });
    this.callbacks.set(id, undefined);
  }

  route(method: string, path: string, body: Record<string, unknown>): RestAnswer | undefined {
    let m = /^\/channels\/(\d+)\/messages$/.exec(path);
    if (m && method === "POST") return this.#create(m[1] as string, body);
    m = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path);
    if (m && method === "PATCH") return this.#edit(m[1] as string, m[2] as string, body);
    m = /^\/channels\/(\d+)\/typing$/.exec(path);
    if (m && method === "POST") {
      this.typing.push({ channelId: m[1] as string, at: Date.now() });
      return { status: 204, body: undefined };
    }
    m = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path);
    if (m && method === "POST") return this.#callback(m[1] as string, m[2] as string, body);
    if (path === "/users/@me" && method === "GET")
      return { status: 200, body: { id: this.botUserId, username: "agent", bot: true } };
    return undefined;
  }

  #create(channelId: string, raw: Record<string, unknown>): RestAnswer {
    const { payload_json: payload, ...rest } = raw;
    const body = typeof payload === "object" && payload !== null ? { ...rest, ...payload } : raw;
    const files = filesOf(body);
    if (!Array.isArray(files)) return files;
    const content = typeof body.content === "string" ? body.content : "";
    if (content.length > LIMIT) return tooLong();
    const badComponent =
      Array.isArray(body.components) && componentError(body.components as DiscordComponent[]);
    if (badComponent) return badComponent;
    if (!content && !Array.isArray(body.components) && files.length === 0)
      return { status: 400, body: { code: 50006, message: "Cannot send an empty message" } };
    const nonce = body.nonce as unknown;
    if (nonce !== undefined && !validNonce(nonce)) return invalidNonce();
    // enforce_nonce: "If another message was created by the same author with the same nonce, that
    // message will be returned and no new message will be created" (every message here is the bot's).
    if (body.enforce_nonce === true && nonce !== undefined) {
      const since = Date.now() - NONCE_WINDOW_MS;
      const first = this.botMessages.find((x) => x.nonce === nonce && x.at > since);
      if (first) return { status: 200, body: messageObject(first, this.botUserId) };
    }
    const ref = body.message_reference as { message_id?: string } | undefined;
    const msg: DiscordBotMessage = {
      id: this.nextId(),
      channelId,
      content,
      at: Date.now(),
      edits: 0,
      ...(files.length > 0 ? { attachments: files } : {}),
      ...(Array.isArray(body.components) ? { components: body.components as DiscordComponent[] } : {}),
      ...(ref?.message_id ? { replyTo: ref.message_id } : {}),
      ...(nonce !== undefined ? { nonce: nonce as string | number } : {}),
    };
    this.botMessages.push(msg);
    this.onCreate?.(msg);
    return { status: 200, body: messageObject(msg, this.botUserId) };
  }

  #edit(channelId: string, id: string, body: Record<string, unknown>): RestAnswer {
    const now = Date.now();
    const recent = (this.#edits.get(channelId) ?? []).filter((at) => at > now - this.editLimit.perMs);
    this.#edits.set(channelId, recent);
    if (recent.length >= this.editLimit.edits) {
      const retryAfter = ((recent[0] as number) + this.editLimit.perMs - now) / 1000;
      this.rateLimited.push({ channelId, at: now, retryAfter });
      return {
        status: 429,
        body: { message: "You are being rate limited.", retry_after: retryAfter, global: false },
        headers: {
          "retry-after": String(Math.ceil(retryAfter)),
          "x-ratelimit-reset-after": String(retryAfter),
          "x-ratelimit-scope": "user",
        },
      };
    }
    recent.push(now);
    const msg = this.botMessages.find((x) => x.channelId === channelId && x.id === id);
    if (!msg) return { status: 404, body: { code: 10008, message: "Unknown Message" } };
    if (typeof body.content === "string") {
      if (body.content.length > LIMIT) return tooLong();
      msg.content = body.content;
    }
    if (Array.isArray(body.components)) msg.components = body.components as DiscordComponent[];
    msg.edits += 1;
    return { status: 200, body: { id, channel_id: channelId, content: msg.content } };
  }

  #callback(id: string, token: string, body: Record<string, unknown>): RestAnswer {
    const known = this.#interactionAt.get(id);
    // An unknown, already answered, or late (over 3 s) interaction is refused.
    if (
      !known ||
      known.token !== token ||
      this.callbacks.get(id) !== undefined ||
      Date.now() - known.at > 3_000
    )
      return { status: 404, body: { code: 10062, message: "Unknown interaction" } };
    const data = body.data as Record<string, unknown> | undefined;
    // The callback's message takes the same 2000 characters as any message
    // (https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-response-object-messages).
    if (typeof data?.content === "string" && data.content.length > LIMIT) return tooLong();
    this.callbacks.set(id, { type: Number(body.type), ...(data ? { data } : {}), at: Date.now() });
    if (Number(body.type) === 7 && known.messageId) {
      const msg = this.botMessages.find((x) => x.id === known.messageId);
      if (msg && data) {
        if (typeof data.content === "string") msg.content = data.content;
        if (Array.isArray(data.components)) msg.components = data.components as DiscordComponent[];
        msg.edits += 1;
      }
    }
    return { status: 204, body: undefined };
  }
}
