// The gateway websocket of the Discord fake: sessions with a sequence and an event log, so a
// Resume replays what the client missed, and faults on command.
import type { WebSocket } from "ws";
import type { DiscordBotMessage, DiscordRest } from "./rest.js";

export type RestFault =
  | { status: 429; retryAfter: number }
  | { status: 500 | 502 }
  | { drop: true }
  /** The request is carried out (a message created), then the socket closed: its answer is lost. */
  | { dropAnswer: true }
  /** An answer exactly as documented (a fixture): status, headers and JSON body. */
  | { status: number; headers: Record<string, string>; body: unknown };

export interface ConnectionInfo {
  id: number;
  /** `/gateway` or `/resume` (the resume_gateway_url). */
  path: string;
  /** The URL's query: `v` (API version) and `encoding` (https://discord.com/developers/docs/events/gateway#connecting). */
  query: Record<string, string>;
  /** The Identify payload's `d` (token left out), when this connection identified. */
  identify?: Record<string, unknown>;
  openedAt: number;
  closedAt?: number;
  closeCode?: number;
  closedBy?: "server" | "client";
  identified: boolean;
  resumedSession?: string;
  heartbeats: number;
  /** When Hello was sent and each heartbeat arrived (ms since epoch). */
  helloAt: number;
  heartbeatAt: number[];
}

interface Session {
  id: string;
  seq: number;
  events: { s: number; t: string; d: unknown }[];
  socket?: WebSocket;
  /** Highest sequence a heartbeat of this session carried. */
  heartbeatSeq: number;
  waiters: { seq: number; resolve: () => void }[];
}

interface Options {
  token: string;
  heartbeatIntervalMs: number;
  disallowedIntents: number;
  botUserId: string;
  resumeUrl(): string;
  nextId(): string;
  rest: DiscordRest;
}

export interface UserMessage {
  channelId: string;
  authorId: string;
  content: string;
  /** Default: a new snowflake. Reuse one to dispatch the same message again. */
  messageId?: string;
  guildId?: string;
  /** Mention the bot (a `<@id>` prefix and the `mentions` array). */
  mention?: boolean;
  /** A thread inside the guild (channel_type 11) instead of a text channel (0). */
  inThread?: boolean;
  /** Reply (type 19) to this message, without pinging its author. */
  replyTo?: string;
  /** Attachment objects (the fake's `cdn.host(...)`). */
  attachments?: Record<string, unknown>[];
}

export class DiscordSessions {
  readonly connections: ConnectionInfo[] = [];
  readonly #sessions = new Map<string, Session>();
  #current: Session | undefined;
  #withholdAcks = 0;
  #dropResumes = 0;
  #withholdHello = 0;
  #sockets = new Map<WebSocket, ConnectionInfo>();
  /** Channel id -> its type (1 DM, 0 guild text, 11 public thread) and guild, as users wrote in them. */
  readonly #channels = new Map<string, { type: number; guildId?: string }>();

  constructor(private readonly o: Options) {}

  /** The heartbeat_interval the next Hello announces (Discord sends 41 250 ms today). */
  set heartbeatIntervalMs(ms: number) {
    this.o.heartbeatIntervalMs = ms;
  }

  /** The session events go to (the last one identified). */
  get current(): { id: string; seq: number } | undefined {
    return this.#current && { id: this.#current.id, seq: this.#current.seq };
  }

  /** The next `count` heartbeats get no ACK (Infinity: until told otherwise). 0 resumes ACKs. */
  withholdAcks(count = Number.POSITIVE_INFINITY): void {
    this.#withholdAcks = count;
  }

  /** The next `count` connections get no Hello (a gateway node that accepts and says nothing). */
  withholdHello(count: number): void {
    this.#withholdHello = count;
  }

  /** The next `count` Resume attempts are answered by dropping the socket. */
  dropResumes(count: number): void {
    this.#dropResumes = count;
  }

  /** A user writes: MESSAGE_CREATE on the current session. `acked` resolves once a heartbeat carries its sequence. */
  userSays(m: UserMessage): { messageId: string; seq: number; acked: Promise<void> } {
    const messageId = m.messageId ?? this.o.nextId();
    const mention = m.mention ? `<@${this.o.botUserId}> ` : "";
    const author = {
      id: m.authorId,
      username: `user${m.authorId.slice(-4)}`,
      global_name: `User ${m.authorId.slice(-4)}`,
      discriminator: "0",
      avatar: null,
    };
    const replied = m.replyTo ? this.#message(m.replyTo) : undefined;
    // https://discord.com/developers/docs/resources/message#message-object and the extra
    // fields of https://discord.com/developers/docs/events/gateway-events#message-create
    const d = {
      id: messageId,
      channel_id: m.channelId,
      ...(m.guildId
        ? {
            guild_id: m.guildId,
            member: { roles: [], joined_at: "2024-01-01T00:00:00.000000+00:00", deaf: false, mute: false },
          }
        : {}),
      channel_type: m.guildId ? (m.inThread ? 11 : 0) : 1,
      author,
      content: `${mention}${m.content}`,
      mentions: m.mention ? [{ id: this.o.botUserId, username: "agent", bot: true }] : [],
      mention_roles: [],
      mention_everyone: false,
      attachments: m.attachments ?? [],
      embeds: [],
      components: [],
      pinned: false,
      tts: false,
      flags: 0,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      type: m.replyTo ? 19 : 0,
      ...(m.replyTo
        ? {
            message_reference: {
              type: 0,
              message_id: m.replyTo,
              channel_id: m.channelId,
              ...(m.guildId ? { guild_id: m.guildId } : {}),
            },
            referenced_message: replied ?? null,
          }
        : {}),
    };
    this.#channels.set(m.channelId, { type: d.channel_type, ...(m.guildId ? { guildId: m.guildId } : {}) });
    const seq = this.dispatch("MESSAGE_CREATE", d);
    return { messageId, seq, acked: this.acked(seq) };
  }

  /**
   * Discord sends a bot its own messages too (MESSAGE_CREATE with the bot as author): the fake
   * does so for every message the bot posts over REST, in the channel's known type.
   */
  echoBotMessage(msg: DiscordBotMessage): void {
    if (!this.#current) return;
    const channel = this.#channels.get(msg.channelId);
    this.dispatch("MESSAGE_CREATE", {
      ...this.#message(msg.id),
      ...(channel?.guildId ? { guild_id: channel.guildId } : {}),
      ...(channel ? { channel_type: channel.type } : {}),
      // "Value will appear in the Message Create event" (Create Message, nonce).
      ...(msg.nonce !== undefined ? { nonce: msg.nonce } : {}),
    });
  }

  /** A message object for a bot message (as `referenced_message` or an echo). */
  #message(id: string): Record<string, unknown> | undefined {
    const msg = this.o.rest.botMessages.find((x) => x.id === id);
    if (!msg) return undefined;
    return {
      id: msg.id,
      channel_id: msg.channelId,
      author: { id: this.o.botUserId, username: "agent", bot: true, discriminator: "0", avatar: null },
      content: msg.content,
      mentions: [],
      mention_roles: [],
      mention_everyone: false,
      attachments: [],
      embeds: [],
      components: msg.components ?? [],
      pinned: false,
      tts: false,
      flags: 0,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      type: msg.replyTo ? 19 : 0,
    };
  }

  /**
   * Dispatches a documented frame as-is (a fixture), under the session's next sequence. An
   * INTERACTION_CREATE is registered so its callback route answers.
   */
  replay(frame: { t: string; d: Record<string, unknown> }): number {
    if (frame.t === "INTERACTION_CREATE") {
      const d = frame.d as { id: string; token: string; message?: { id?: string } };
      this.o.rest.interaction(d.id, d.token, d.message?.id);
    }
    const d = frame.d as { channel_id?: string; guild_id?: string; channel_type?: number };
    if (frame.t === "MESSAGE_CREATE" && d.channel_id && d.channel_type !== undefined)
      this.#channels.set(d.channel_id, {
        type: d.channel_type,
        ...(d.guild_id ? { guildId: d.guild_id } : {}),
      });
    return this.dispatch(frame.t, frame.d);
  }

  /** A user presses a component button on a bot message: INTERACTION_CREATE (type 3). */
  press(input: { messageId: string; customId: string; userId: string }): {
    interactionId: string;
    seq: number;
  } {
    const msg = this.o.rest.botMessages.find((x) => x.id === input.messageId);
    const shown = msg?.components?.some((row) => row.components?.some((c) => c.custom_id === input.customId));
    if (!msg || !shown)
      throw new Error(`discord fake: message ${input.messageId} shows no button "${input.customId}"`);
    const id = this.o.nextId();
    const token = `itoken-${id}`;
    this.o.rest.interaction(id, token, msg.id);
    const seq = this.dispatch("INTERACTION_CREATE", {
      id,
      application_id: this.o.botUserId,
      type: 3,
      token,
      version: 1,
      channel_id: msg.channelId,
      user: { id: input.userId, username: `user${input.userId.slice(-4)}` },
      message: { id: msg.id, channel_id: msg.channelId, content: msg.content },
      data: { custom_id: input.customId, component_type: 2 },
    });
    return { interactionId: id, seq };
  }

  /** Appends a dispatch to the current session's log and sends it when connected. */
  dispatch(t: string, d: unknown): number {
    const session = this.#current;
    if (!session) throw new Error("discord fake: no session has identified yet");
    const s = ++session.seq;
    session.events.push({ s, t, d });
    session.socket?.send(JSON.stringify({ op: 0, s, t, d }));
    return s;
  }

  acked(seq: number, sessionId = this.#current?.id): Promise<void> {
    const session = sessionId ? this.#sessions.get(sessionId) : undefined;
    if (!session) return Promise.reject(new Error("discord fake: no session"));
    if (session.heartbeatSeq >= seq) return Promise.resolve();
    return new Promise((resolve) => session.waiters.push({ seq, resolve }));
  }

  /** Sends a frame (Reconnect `{op: 7}`, Invalid Session `{op: 9, d}`, a heartbeat request `{op: 1}`) on the newest socket. */
  send(frame: { op: number; d?: unknown; t?: string | null; s?: number | null }): void {
    this.#newest()?.send(JSON.stringify({ s: null, t: null, d: null, ...frame }));
  }

  /** Closes the newest socket with `code` (4000-4014, 1001, ...). */
  closeWith(code: number, reason = ""): void {
    const ws = this.#newest();
    if (ws) this.#close(ws, code, reason);
  }

  /** Destroys the newest socket without a close frame. */
  drop(): void {
    this.#newest()?.terminate();
  }

  closeAll(): void {
    for (const ws of this.#sockets.keys()) ws.terminate();
  }

  accept(ws: WebSocket, path: string, query: Record<string, string> = {}): void {
    const info: ConnectionInfo = {
      id: this.connections.length + 1,
      path,
      query,
      openedAt: Date.now(),
      identified: false,
      heartbeats: 0,
      helloAt: Date.now(),
      heartbeatAt: [],
    };
    this.connections.push(info);
    this.#sockets.set(ws, info);
    ws.on("close", (code) => {
      this.#sockets.delete(ws);
      info.closedAt ??= Date.now();
      info.closeCode ??= code;
      info.closedBy ??= "client";
      for (const s of this.#sessions.values()) if (s.socket === ws) delete s.socket;
    });
    ws.on("message", (raw) => {
      let frame: { op: number; d: unknown };
      try {
        frame = JSON.parse(String(raw));
      } catch {
        return this.#close(ws, 4002, "Error while decoding payload.");
      }
      this.#frame(ws, info, frame);
    });
    if (this.#withholdHello > 0) {
      this.#withholdHello -= 1;
      return;
    }
    ws.send(
      JSON.stringify({ op: 10, d: { heartbeat_interval: this.o.heartbeatIntervalMs }, s: null, t: null }),
    );
  }

  #newest(): WebSocket | undefined {
    return [...this.#sockets.keys()].at(-1);
  }

  #close(ws: WebSocket, code: number, reason: string): void {
    const info = this.#sockets.get(ws);
    if (info) Object.assign(info, { closedAt: Date.now(), closeCode: code, closedBy: "server" });
    ws.close(code, reason);
  }

  #frame(ws: WebSocket, info: ConnectionInfo, frame: { op: number; d: unknown }): void {
    switch (frame.op) {
      case 1: {
        info.heartbeats += 1;
        info.heartbeatAt.push(Date.now());
        const session = [...this.#sessions.values()].find((s) => s.socket === ws);
        if (session && typeof frame.d === "number" && frame.d > session.heartbeatSeq) {
          session.heartbeatSeq = frame.d;
          const due = session.waiters.filter((w) => w.seq <= session.heartbeatSeq);
          session.waiters = session.waiters.filter((w) => w.seq > session.heartbeatSeq);
          for (const w of due) w.resolve();
        }
        if (this.#withholdAcks > 0) this.#withholdAcks -= 1;
        else ws.send(JSON.stringify({ op: 11, s: null, t: null, d: null }));
        return;
      }
      case 2:
        this.#identify(ws, info, frame.d as { token?: string; intents?: number });
        return;
      case 6:
        this.#resume(ws, info, frame.d as { token?: string; session_id?: string; seq?: number });
        return;
      default:
        this.#close(ws, 4001, "Unknown opcode.");
    }
  }

  #identify(ws: WebSocket, info: ConnectionInfo, d: { token?: string; intents?: number }): void {
    if (info.identified) {
      this.#close(ws, 4005, "Already authenticated.");
      return;
    }
    const { token: _, ...shown } = d as Record<string, unknown>;
    info.identify = shown;
    if (d.token !== this.o.token) {
      this.#close(ws, 4004, "Authentication failed.");
      return;
    }
    if (typeof d.intents !== "number") {
      this.#close(ws, 4013, "Invalid intent(s).");
      return;
    }
    if (d.intents & this.o.disallowedIntents) {
      this.#close(ws, 4014, "Disallowed intent(s).");
      return;
    }
    info.identified = true;
    const session: Session = {
      id: `sess-${this.o.nextId()}`,
      seq: 0,
      events: [],
      socket: ws,
      heartbeatSeq: 0,
      waiters: [],
    };
    this.#sessions.set(session.id, session);
    this.#current = session;
    this.dispatch("READY", {
      v: 10,
      user: { id: this.o.botUserId, username: "agent", bot: true },
      guilds: [],
      session_id: session.id,
      resume_gateway_url: this.o.resumeUrl(),
      application: { id: this.o.botUserId },
    });
  }

  #resume(
    ws: WebSocket,
    info: ConnectionInfo,
    d: { token?: string; session_id?: string; seq?: number },
  ): void {
    if (d.token !== this.o.token) {
      this.#close(ws, 4004, "Authentication failed.");
      return;
    }
    if (this.#dropResumes > 0) {
      this.#dropResumes -= 1;
      ws.terminate();
      return;
    }
    const session = d.session_id ? this.#sessions.get(d.session_id) : undefined;
    if (!session || session !== this.#current) {
      ws.send(JSON.stringify({ op: 9, d: false, s: null, t: null }));
      return;
    }
    if (typeof d.seq !== "number" || d.seq > session.seq) {
      this.#close(ws, 4007, "Invalid seq.");
      return;
    }
    info.identified = true;
    info.resumedSession = session.id;
    session.socket?.terminate();
    session.socket = ws;
    for (const e of session.events) if (e.s > d.seq) ws.send(JSON.stringify({ op: 0, ...e }));
    session.seq += 1;
    session.events.push({ s: session.seq, t: "RESUMED", d: {} });
    ws.send(JSON.stringify({ op: 0, s: session.seq, t: "RESUMED", d: {} }));
  }
}
