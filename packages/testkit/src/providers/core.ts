// What every provider fake shares: a real HTTP server on 127.0.0.1, every request recorded, a
// queue of scripted steps (answers, refusals, faults mid-stream), and the order in which a
// request is checked: route, JSON body, auth, history, then the scripted step (refusal or answer).
// Each format module (openai.ts, anthropic.ts, gemini.ts) says how its provider spells these.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { readBody } from "../http-util.js";
import { type FakeServer, listenLocal } from "../server.js";
import type {
  RecordedEvent,
  RecordedRequest,
  RequestOutcome,
  ScriptedAnswer,
  ScriptedFault,
  ScriptedStep,
} from "./script.js";

/** A provider's error answer: its status, its own JSON body, its headers. */
export interface Refusal {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** One rendered server-sent event; `token` marks a delta (text, reasoning or tool arguments). */
export interface Frame {
  text: string;
  token: boolean;
}

/** What a format reads from the request line: the model, and whether the client asked for a stream. */
export interface Route {
  model: string;
  stream: boolean;
  /** Gemini: streamGenerateContent without `alt=sse` answers one JSON array. */
  jsonArray?: boolean;
}

export interface ProviderFakeOptions {
  /** The key the fake accepts; `false` accepts any request (a local server without keys). */
  apiKey?: string | false;
  /** Answered when the queue is empty. Default: the text "ok". */
  fallback?: ScriptedStep | ((request: RecordedRequest) => ScriptedStep);
}

type StepSource = ScriptedStep | ((request: RecordedRequest) => ScriptedStep);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export abstract class ProviderFake {
  /** Every request, in arrival order (refused ones included). */
  readonly requests: RecordedRequest[] = [];
  /** The key accepted; change it to revoke the one a running client holds (its next request is refused). */
  apiKey: string | false;
  readonly #queue: StepSource[] = [];
  readonly #fallback: StepSource;
  #server: FakeServer | undefined;

  protected constructor(options: ProviderFakeOptions, defaultKey: string) {
    this.apiKey = options.apiKey ?? defaultKey;
    this.#fallback = options.fallback ?? { text: ["ok"] };
  }

  /** `http://127.0.0.1:<port>` */
  get url(): string {
    if (!this.#server) throw new Error(`${this.constructor.name} is not started`);
    return this.#server.url;
  }

  /** The base URL an AI SDK provider takes (`baseURL`). */
  abstract get baseURL(): string;

  /** How many requests arrived. */
  get count(): number {
    return this.requests.length;
  }

  /** Queues what the next requests get, one step each, in order. */
  enqueue(...steps: StepSource[]): this {
    this.#queue.push(...steps);
    return this;
  }

  /** Steps queued and not yet used. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Drops the steps not yet used; returns how many there were (0 when every step was asked for). */
  discardPending(): number {
    return this.#queue.splice(0).length;
  }

  async close(): Promise<void> {
    await this.#server?.close();
  }

  protected async listen(): Promise<void> {
    this.#server = await listenLocal((req, res) => {
      void this.#serve(req, res).catch(() => res.destroy());
    });
  }

  // What each format spells its own way.
  /** The route of a request the provider serves (`body` is `{}` when it was not a JSON object), or undefined. */
  protected abstract route(method: string, url: URL, body: Record<string, unknown>): Route | undefined;
  protected abstract notFound(method: string, url: URL): Refusal;
  protected abstract invalidJson(): Refusal;
  protected abstract authRefusal(headers: Record<string, string>, url: URL): Refusal | undefined;
  protected abstract historyRefusal(body: Record<string, unknown>, route: Route): Refusal | undefined;
  protected abstract faultRefusal(fault: ScriptedFault): Refusal;
  protected abstract frames(
    answer: ScriptedAnswer,
    body: Record<string, unknown>,
    route: Route,
    index: number,
  ): Frame[];
  protected abstract json(
    answer: ScriptedAnswer,
    body: Record<string, unknown>,
    route: Route,
    index: number,
  ): unknown;
  protected abstract errorFrame(): string;
  protected abstract malformedFrame(): string;
  protected abstract replayFrame(event: RecordedEvent): string;
  /** Response headers every answer carries (request ids). */
  protected abstract commonHeaders(index: number): Record<string, string>;

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = (await readBody(req)).toString("utf8");
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
    }
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    let settle: (outcome: RequestOutcome) => void = () => {};
    const record: RecordedRequest = {
      index: this.requests.length,
      method: req.method ?? "",
      url: req.url ?? "/",
      headers,
      body,
      status: 0,
      outcome: new Promise((resolve) => (settle = resolve)),
    };
    this.requests.push(record);
    // Listening from the start: a client that gives up during a slow head is seen too.
    let closed = false;
    res.on("close", () => {
      closed = !res.writableFinished;
      if (closed) settle("client-closed");
    });
    const refuse = (refusal: Refusal) => {
      record.status = refusal.status;
      settle("refused");
      res
        .writeHead(refusal.status, {
          "content-type": "application/json",
          ...this.commonHeaders(record.index),
          ...refusal.headers,
        })
        .end(JSON.stringify(refusal.body));
    };

    const isObject = typeof body === "object" && body !== null && !Array.isArray(body);
    const route = this.route(record.method, url, isObject ? (body as Record<string, unknown>) : {});
    if (!route) return refuse(this.notFound(record.method, url));
    if (!isObject) return refuse(this.invalidJson());
    const auth = this.authRefusal(headers, url);
    if (auth) return refuse(auth);
    const history = this.historyRefusal(body as Record<string, unknown>, route);
    if (history) return refuse(history);

    // A scripted step is taken only by a request the provider accepted (route, key, history).
    const source = this.#queue.shift() ?? this.#fallback;
    const step = typeof source === "function" ? source(record) : source;

    if (step.headDelayMs) await sleep(step.headDelayMs);
    if (closed) return;
    const fault = step.fault;
    if (fault?.kind === "drop" && fault.when === "before-head") {
      settle("dropped");
      res.socket?.destroy();
      return;
    }
    if (fault && !isMidStream(fault)) return refuse(this.faultRefusal(fault));

    record.status = 200;
    if (!route.stream) {
      if (fault?.kind === "drop") {
        settle("dropped");
        res.socket?.destroy();
        return;
      }
      res.writeHead(200, { "content-type": "application/json", ...this.commonHeaders(record.index) });
      const text = JSON.stringify(this.json(step, body as Record<string, unknown>, route, record.index));
      // A malformed non-streamed answer is the same JSON cut in half.
      res.end(fault?.kind === "malformed" ? text.slice(0, Math.floor(text.length / 2)) : text);
      settle("complete");
      return;
    }

    const frames: Frame[] = step.transcript
      ? step.transcript.map((event) => ({ text: this.replayFrame(event), token: true }))
      : this.frames(step, body as Record<string, unknown>, route, record.index);
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...this.commonHeaders(record.index),
    });
    res.flushHeaders();
    const faultAt = faultPosition(fault);
    let tokens = 0;
    for (const frame of frames) {
      if (frame.token && fault && tokens === faultAt) {
        if (fault.kind === "drop") return dropAfterFlush(res, settle);
        if (fault.kind === "stream_error") {
          res.end(this.errorFrame());
          settle("complete");
          return;
        }
        if (fault.kind === "malformed") res.write(this.malformedFrame());
      }
      if (frame.token) {
        if (step.tokenDelayMs) await sleep(step.tokenDelayMs);
        tokens++;
      }
      if (closed) return;
      res.write(frame.text);
    }
    // A fault scripted after more deltas than the answer has still happens, at the end.
    if (fault?.kind === "drop" && tokens <= faultAt) return dropAfterFlush(res, settle);
    if (fault?.kind === "stream_error" && tokens <= faultAt) res.write(this.errorFrame());
    res.end();
    settle("complete");
  }
}

/** Cuts the connection once what was written has reached the socket (a reset, not a clean end). */
async function dropAfterFlush(res: ServerResponse, settle: (outcome: RequestOutcome) => void): Promise<void> {
  const socket = res.socket;
  if (socket) await new Promise<void>((resolve) => socket.write("", () => resolve()));
  settle("dropped");
  socket?.destroy();
}

const isMidStream = (fault: ScriptedFault) =>
  fault.kind === "stream_error" || fault.kind === "malformed" || fault.kind === "drop";

/** How many deltas are sent before a mid-stream fault fires. */
function faultPosition(fault: ScriptedFault | undefined): number {
  switch (fault?.kind) {
    case "stream_error":
      return fault.afterTokens ?? 1;
    case "malformed":
      return fault.afterTokens ?? 0;
    case "drop":
      return fault.when === "after-first-token" ? 1 : 0;
    default:
      return Number.POSITIVE_INFINITY;
  }
}

/** `retry-after` / `retry-after-ms` for a scripted 429 (`retry-after: 1` when neither is given). */
export function retryHeaders(fault: ScriptedFault): Record<string, string> {
  if (fault.kind !== "rate_limited") return {};
  const headers: Record<string, string> = {};
  if (fault.retryAfterSeconds !== undefined) headers["retry-after"] = String(fault.retryAfterSeconds);
  if (fault.retryAfterMs !== undefined) headers["retry-after-ms"] = String(fault.retryAfterMs);
  if (Object.keys(headers).length === 0) headers["retry-after"] = "1";
  return headers;
}

/** A rough token count of a request body, for default usage figures (4 characters a token). */
export const roughTokens = (value: unknown): number =>
  Math.max(1, Math.ceil(JSON.stringify(value ?? "").length / 4));

/** Output tokens of an answer when none are scripted: one per delta. */
export const deltaCount = (answer: ScriptedAnswer): number =>
  (answer.reasoning?.length ?? 0) +
  (answer.text?.length ?? 0) +
  (answer.toolCalls ?? []).reduce((n, call) => n + call.arguments.length, 0);

/** The finish an answer ends with when none is scripted. */
export const finishOf = (answer: ScriptedAnswer) =>
  answer.finish ?? ((answer.toolCalls?.length ?? 0) > 0 ? "tool_calls" : "stop");

/** Constant-time comparison of a presented key with the expected one (digests: equal lengths). */
export function sameKey(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
