// A signal-cli daemon as `signal-cli daemon --http` shows itself (multi-account mode), after the
// signal-cli-jsonrpc(5) man page (https://github.com/AsamK/signal-cli/blob/master/man/signal-cli-jsonrpc.5.adoc):
// a GET /api/v1/events Server-Sent Events stream (`event:receive` with one JSON line of data, a
// `:` keepalive comment every 15 s), a POST /api/v1/rpc JSON-RPC 2.0 route and GET /api/v1/check.
// Like the real daemon, events carry NO `id` and `Last-Event-ID` replays nothing: an event goes to
// the streams open when it arrives. What happens to a message while no stream is open depends on
// the daemon's `--receive-mode`: `on-start` (signal-cli's default) takes it from Signal's servers
// and it reaches nobody; `on-connection` leaves it on Signal's servers until a client connects.
// On command it goes silent (no events, no keepalives, connection kept open), refuses
// connections, restarts and fails the next rpc call.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { type FakeServer, listenLocal } from "../server.js";

export interface SignalDirectMessage {
  /** Sender phone number (E.164). */
  from: string;
  /** Sender ACI; defaults to a stable value derived from `from`. */
  uuid?: string;
  name?: string;
  text: string;
  /** Envelope timestamp (ms); Signal's message identity together with the sender. Default now. */
  timestamp?: number;
  /** Sends the message into this group (base64 group id) instead of as a direct message. */
  groupId?: string;
  /** Files the message carries (see `attachment`), listed in the data message as signal-cli does. */
  attachments?: SignalAttachment[];
}

/** An attachment as signal-cli's JSON output lists it (`contentType`, `filename`, `id`, `size`). */
export interface SignalAttachment {
  id: string;
  contentType: string;
  filename?: string;
  size: number;
}

export interface SignalRpcCall {
  method: string;
  params: Record<string, unknown>;
  id: unknown;
  contentType: string | undefined;
}

export interface SignalSent {
  /** The first recipient of a `send`. */
  recipient: string;
  message: string;
  account: unknown;
  timestamp: number;
  /** The files of the message, decoded from their data URIs as signal-cli does. */
  attachments?: SignalSentFile[];
}

/** One `attachments` entry of a `send`: a data URI's type, `filename` parameter and bytes. */
export interface SignalSentFile {
  contentType: string;
  filename?: string;
  bytes: Buffer;
}

export interface SignalReceipt {
  recipient: string;
  targetTimestamps: number[];
  type: string;
}

/** What the next rpc call of `method` (default `send`) gets instead of an answer. */
export type SignalRpcFailure = (
  | { kind: "http"; status: number }
  | { kind: "rpc"; code: number; message: string; data?: unknown }
  /** A JSON-RPC success whose result says what happened per recipient (`results[].type`). */
  | { kind: "result"; result: unknown }
) & { method?: string };

/** signal-cli's `--receive-mode`: when it takes messages from Signal's servers. */
export type SignalReceiveMode = "on-start" | "on-connection";

export class FakeSignalDaemon {
  readonly rpcCalls: SignalRpcCall[] = [];
  readonly sent: SignalSent[] = [];
  readonly receipts: SignalReceipt[] = [];
  /** Every events request, with when it arrived and its Last-Event-ID. */
  readonly connections: { at: number; lastEventId: string | undefined; account: string | null }[] = [];
  readonly failures: SignalRpcFailure[] = [];
  /** How often each attachment id was fetched with getAttachment. */
  readonly attachmentFetches = new Map<string, number>();
  readonly #attachments = new Map<string, Buffer>();
  #nextAttachment = 1;
  #server: FakeServer | undefined;
  #streams = new Set<ServerResponse>();
  #sockets = new Set<Socket>();
  /** Messages Signal's servers hold until a client connects (`on-connection` mode only). */
  #waiting: string[] = [];
  /** Messages that reached no client (`on-start` mode with no stream open): lost, as on the real daemon. */
  readonly dropped: string[] = [];
  #silent = false;
  #keepalive: NodeJS.Timeout | undefined;
  #clock = 1_700_000_000_000;

  private constructor(
    readonly accounts: readonly string[],
    readonly keepaliveMs: number,
    readonly receiveMode: SignalReceiveMode,
  ) {}

  static async start(options: SignalDaemonOptions) {
    const daemon = new FakeSignalDaemon(
      options.accounts,
      options.keepaliveMs ?? 15_000,
      options.receiveMode ?? "on-start",
    );
    await daemon.#listen(options.port ?? 0);
    return daemon;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  port = 0;

  /** Event streams open right now. */
  get openStreams(): number {
    return this.#streams.size;
  }

  /** Holds a received file as the daemon does (its attachments directory); the entry a message lists. */
  attachment(bytes: Buffer, contentType: string, filename?: string): SignalAttachment {
    const id = `att${this.#nextAttachment++}.bin`;
    this.#attachments.set(id, bytes);
    return { id, contentType, ...(filename ? { filename } : {}), size: bytes.length };
  }

  /** Emits an incoming message to every open stream (see the receive mode); returns its envelope timestamp. */
  receive(account: string, message: SignalDirectMessage): number {
    const timestamp = message.timestamp ?? this.#clock++;
    const dataMessage: Record<string, unknown> = {
      timestamp,
      message: message.text,
      expiresInSeconds: 0,
      viewOnce: false,
    };
    if (message.groupId) dataMessage.groupInfo = { groupId: message.groupId, type: "DELIVER" };
    if (message.attachments) dataMessage.attachments = message.attachments;
    const envelope = {
      source: message.from,
      sourceNumber: message.from,
      sourceUuid: message.uuid ?? uuidFor(message.from),
      sourceName: message.name ?? message.from,
      sourceDevice: 1,
      timestamp,
      dataMessage,
    };
    this.#emit(JSON.stringify({ envelope, account }));
    return timestamp;
  }

  /** Emits a non-message event (receipt, typing, sync) the way the daemon forwards everything. */
  receiveRaw(account: string, envelope: Record<string, unknown>): void {
    this.#emit(JSON.stringify({ envelope, account }));
  }

  /** Silent: streams stay open but carry nothing (no events, no keepalives) until `silent(false)`. */
  silent(on: boolean): void {
    this.#silent = on;
  }

  /** Stops listening and drops every connection: the next connect is refused. */
  async refuse(): Promise<void> {
    await this.#close();
  }

  /** Listens again on the same port (after `refuse`). */
  async resume(): Promise<void> {
    await this.#listen(this.port);
  }

  async restart(): Promise<void> {
    await this.refuse();
    await this.resume();
  }

  /** The next rpc call of `failure.method` (default `send`) fails this way. */
  failNext(failure: SignalRpcFailure): void {
    this.failures.push(failure);
  }

  close(): Promise<void> {
    return this.#close();
  }

  #emit(data: string): void {
    if (this.#streams.size === 0) {
      if (this.receiveMode === "on-connection") this.#waiting.push(data);
      else this.dropped.push(data);
      return;
    }
    if (this.#silent) return;
    for (const res of this.#streams) res.write(frame(data));
  }

  async #listen(port: number): Promise<void> {
    this.#server = await listenLocal((req, res) => this.#handle(req, res), port);
    this.port = this.#server.port;
    this.#server.server.on("connection", (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
    this.#keepalive = setInterval(() => {
      if (this.#silent) return;
      for (const res of this.#streams) res.write(":\n");
    }, this.keepaliveMs);
    this.#keepalive.unref();
  }

  async #close(): Promise<void> {
    if (this.#keepalive) clearInterval(this.#keepalive);
    this.#keepalive = undefined;
    for (const res of this.#streams) res.destroy();
    this.#streams.clear();
    for (const socket of this.#sockets) socket.destroy();
    await this.#server?.close();
    this.#server = undefined;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/api/v1/check") return void res.writeHead(req.method === "GET" ? 200 : 405).end();
    if (url.pathname === "/api/v1/events") return void this.#events(req, res, url);
    if (url.pathname === "/api/v1/rpc") return void this.#rpc(req, res);
    res.writeHead(404).end();
  }

  #events(req: IncomingMessage, res: ServerResponse, url: URL): void {
    if (req.method !== "GET") return void res.writeHead(405).end();
    const account = url.searchParams.get("account");
    const lastEventId = header(req, "last-event-id");
    this.connections.push({ at: Date.now(), lastEventId, account });
    // Multi-account mode: an unknown account is a 400; no account streams every account.
    if (account && !this.accounts.includes(account)) return void res.writeHead(400).end();
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.flushHeaders();
    this.#streams.add(res);
    res.on("close", () => this.#streams.delete(res));
    // `Last-Event-ID` is recorded above and otherwise ignored: the daemon keeps no event history.
    for (const data of this.#waiting.splice(0)) res.write(frame(data));
  }

  async #rpc(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST") return void res.writeHead(405).end();
    const contentType = header(req, "content-type");
    if (!contentType?.startsWith("application/json")) return void res.writeHead(415).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let request: { method?: unknown; params?: unknown; id?: unknown };
    try {
      request = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return json(res, { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null });
    }
    const params = (request.params ?? {}) as Record<string, unknown>;
    const id = request.id ?? null;
    this.rpcCalls.push({ method: String(request.method), params, id, contentType });
    const at = this.failures.findIndex((f) => (f.method ?? "send") === request.method);
    const failure = at >= 0 ? this.failures.splice(at, 1)[0] : undefined;
    if (failure?.kind === "http") return void res.writeHead(failure.status).end();
    if (failure?.kind === "result") return json(res, { jsonrpc: "2.0", result: failure.result, id });
    if (failure?.kind === "rpc") {
      const { code, message, data } = failure;
      return json(res, {
        jsonrpc: "2.0",
        error: { code, message, ...(data !== undefined ? { data } : {}) },
        id,
      });
    }
    const error = (code: number, message: string) =>
      json(res, { jsonrpc: "2.0", error: { code, message }, id });
    if (typeof request.method !== "string") return error(-32600, "method field must be set");
    if (params.account !== undefined && !this.accounts.includes(String(params.account)))
      return error(-32602, "Specified account does not exist");
    const recipients = ([] as unknown[]).concat(params.recipient ?? []).map(String);
    switch (request.method) {
      case "send": {
        // signal-cli-jsonrpc(5): a multi-value option is a JSON array or, for one value, `attachment`.
        const uris = ([] as unknown[]).concat(params.attachments ?? params.attachment ?? []).map(String);
        const files: SignalSentFile[] = [];
        for (const uri of uris) {
          const file = dataUriFile(uri);
          // signal-cli takes anything else as a path on its own disk, which the fake has none of.
          if (!file) return error(-1, `Failed to add attachment: ${uri.slice(0, 40)}`);
          files.push(file);
        }
        const message = typeof params.message === "string" ? params.message : "";
        if (recipients.length === 0 || (message === "" && files.length === 0))
          return error(-32602, "recipient and a message or an attachment are required");
        const timestamp = this.#clock++;
        for (const recipient of recipients)
          this.sent.push({
            recipient,
            message,
            account: params.account,
            timestamp,
            ...(files.length > 0 ? { attachments: files } : {}),
          });
        return json(res, {
          jsonrpc: "2.0",
          result: {
            timestamp,
            results: recipients.map((r) => ({ recipientAddress: { number: r }, type: "SUCCESS" })),
          },
          id,
        });
      }
      case "sendReceipt": {
        const targets = ([] as unknown[]).concat(params.targetTimestamp ?? []).map(Number);
        if (recipients.length !== 1 || targets.length === 0)
          return error(-32602, "recipient and targetTimestamp are required");
        this.receipts.push({
          recipient: recipients[0] as string,
          targetTimestamps: targets,
          type: String(params.type ?? "read"),
        });
        return json(res, { jsonrpc: "2.0", result: {}, id });
      }
      case "sendTyping":
        return json(res, { jsonrpc: "2.0", result: {}, id });
      case "getAttachment": {
        // signal-cli-jsonrpc(5) getAttachment: `id` plus `recipient` or `groupId`; the file base64 in `data`.
        const bytes = this.#attachments.get(String(params.id));
        if (!bytes) return error(-1, "Attachment file not found");
        this.attachmentFetches.set(
          String(params.id),
          (this.attachmentFetches.get(String(params.id)) ?? 0) + 1,
        );
        return json(res, { jsonrpc: "2.0", result: { data: bytes.toString("base64") }, id });
      }
      default:
        return error(-32601, "Method not implemented");
    }
  }
}

/**
 * An RFC 2397 data URI as signal-cli reads an `--attachment` (signal-cli(1) send): `data:<type>`,
 * `;key=value` parameters whose values are URL-decoded (`filename` names the file), `;base64,` and
 * the bytes. Undefined for anything that is not one.
 */
function dataUriFile(uri: string): SignalSentFile | undefined {
  const m = /^data:([^;,]+\/[^;,]+)((?:;[^;,=]+=[^;,]*)*);base64,([A-Za-z0-9+/=]*)$/i.exec(uri);
  if (!m) return undefined;
  const params = new Map<string, string>();
  for (const p of (m[2] ?? "").split(";").slice(1)) {
    const at = p.indexOf("=");
    params.set(p.slice(0, at), decodeURIComponent(p.slice(at + 1)));
  }
  const filename = params.get("filename");
  return {
    contentType: m[1] as string,
    ...(filename ? { filename } : {}),
    bytes: Buffer.from(m[3] ?? "", "base64"),
  };
}

const frame = (data: string) => `event:receive\ndata:${data}\n\n`;

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** A stable UUID-shaped ACI for a phone number. */
function uuidFor(number: string): string {
  const hex = Buffer.from(number).toString("hex").padEnd(32, "0").slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export interface SignalDaemonOptions {
  accounts: string[];
  keepaliveMs?: number;
  port?: number;
  /** Default `on-start`, signal-cli's own default. */
  receiveMode?: SignalReceiveMode;
}

/** Starts a fake daemon on 127.0.0.1 serving `accounts`. */
export function startSignalDaemon(options: SignalDaemonOptions) {
  return FakeSignalDaemon.start(options);
}
