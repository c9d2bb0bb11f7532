// One HTTP client for platform calls: a timeout per call, the caller's abort, and every failure as a
// PlatformCallError carrying the facts `sendFailure` and the poll loop classify (status, Retry-After,
// the platform's own code and wait, or "no answer"). Adapters add only how their body reports an error.
// JSON and string bodies go through the kit's keep-alive transport (http-transport.ts: redirects
// answered, not followed); FormData (uploads) through fetch, which builds the multipart body.
import type { GatewaySendError } from "./errors.js";
import {
  FETCH_DEFAULT_HEADERS,
  HttpAnswerTooLargeError,
  HttpHeaderError,
  httpTransport,
  HttpTimeoutError,
  type PlatformAnswer,
} from "./http-transport.js";
import { type FailureFacts, type PlatformRule, sendFailure } from "./send-failure.js";

/** A platform call that failed: what was called and what is known about the failure. */
export class PlatformCallError extends Error {
  constructor(
    readonly platform: string,
    /** What was called (`getUpdates`, `apps.connections.open`). */
    readonly call: string,
    readonly facts: FailureFacts,
    cause?: unknown,
  ) {
    const what = facts.status !== undefined ? `answered ${facts.status}` : "no answer";
    super(
      `${platform} ${call}: ${what}${facts.detail ? ` (${facts.detail.slice(0, 300)})` : ""}`,
      cause !== undefined ? { cause } : undefined,
    );
    this.name = "PlatformCallError";
  }

  /** The outbox's error for this failure (429 waits, 401 stops the gateway naming `envVar`, ...). */
  toSendError(options: { envVar?: string; platformRule?: PlatformRule } = {}): GatewaySendError {
    return sendFailure(this.facts, { platform: this.platform, call: this.call, ...options, cause: this });
  }
}

export interface PlatformClientOptions {
  platform: string;
  /** Timeout of a call that sets none. */
  timeoutMs: number;
  /**
   * Reads a failure the platform reports in a parsed body: Telegram `{ ok: false, error_code }`,
   * Slack `{ ok: false, error }` (with HTTP 200). Undefined: the body is a success (when the status is).
   */
  bodyFailure?: (body: unknown, status: number) => FailureFacts | undefined;
  /**
   * Every call through this fetch instead of the kit's transport (fetch's rules: redirects followed);
   * the bench's fetch side. Default: JSON and string bodies by the transport, FormData by global fetch.
   */
  fetch?: typeof fetch;
  /** The most of an answer kept (the transport's `maxBytes`; default MAX_ANSWER_BYTES). */
  maxBytes?: number;
}

export interface PlatformCall {
  method?: string;
  headers?: Record<string, string>;
  /** A JSON value (sent as application/json), or FormData / a string as is. */
  body?: unknown;
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * A read the platform may get twice without harm (Telegram getUpdates, getFile): sent again when a
   * kept-alive socket its server had closed fails it before any answer (the transport's `repeatable`).
   */
  repeatable?: boolean;
}

/** Calls a platform and reads its JSON answer; throws PlatformCallError for every failure but an abort. */
export class PlatformClient {
  constructor(readonly options: PlatformClientOptions) {}

  /** The parsed answer (undefined for an empty one, e.g. a 204); an unreadable 2xx answer is a failure. */
  async json<T>(call: string, url: string, request: PlatformCall = {}): Promise<T> {
    const res = await this.#send(call, url, request);
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      if (request.signal?.aborted) throw err;
      // The platform answered, too much to keep: its answer's failure, classified by its status.
      if (err instanceof HttpAnswerTooLargeError)
        throw this.#error(call, { status: res.status, detail: err.message }, res, err);
      throw this.#error(call, { network: true, detail: "the answer broke off" }, res, err);
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch (err) {
      // An error page is still the status's failure; only a success must be readable.
      if (res.ok) throw this.#error(call, { status: res.status, detail: "unreadable answer" }, res, err);
    }
    const reported = this.options.bodyFailure?.(body ?? {}, res.status);
    if (reported || !res.ok) {
      const detail =
        reported?.detail ?? (body === undefined ? text.slice(0, 200) || res.statusText : undefined);
      throw this.#error(call, { status: res.status, ...(detail ? { detail } : {}), ...reported }, res);
    }
    return body as T;
  }

  async #send(call: string, url: string, request: PlatformCall): Promise<PlatformAnswer> {
    const { body } = request;
    if (this.options.fetch || body instanceof FormData) return this.#fetch(call, url, request);
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs;
    const raw = body === undefined || typeof body === "string";
    const headers: Record<string, string> = { ...FETCH_DEFAULT_HEADERS };
    if (body !== undefined) headers["content-type"] = raw ? "text/plain;charset=UTF-8" : "application/json";
    if (request.headers) for (const [k, v] of Object.entries(request.headers)) headers[k.toLowerCase()] = v;
    try {
      return await httpTransport.request(url, {
        method: request.method ?? (body === undefined ? "GET" : "POST"),
        headers,
        ...(body === undefined ? {} : { body: raw ? (body as string) : JSON.stringify(body) }),
        timeoutMs,
        ...(request.signal ? { signal: request.signal } : {}),
        ...(request.repeatable ? { repeatable: true } : {}),
        ...(this.options.maxBytes !== undefined ? { maxBytes: this.options.maxBytes } : {}),
      });
    } catch (err) {
      if (request.signal?.aborted) throw err;
      const named = err instanceof HttpTimeoutError || err instanceof HttpHeaderError;
      const detail = named ? err.message : "connection failed";
      throw new PlatformCallError(this.options.platform, call, { network: true, detail }, err);
    }
  }

  async #fetch(call: string, url: string, request: PlatformCall): Promise<Response> {
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const { body } = request;
    const raw = body === undefined || typeof body === "string" || body instanceof FormData;
    try {
      return await (this.options.fetch ?? fetch)(url, {
        method: request.method ?? (body === undefined ? "GET" : "POST"),
        headers: { ...(raw ? {} : { "content-type": "application/json" }), ...request.headers },
        ...(body === undefined ? {} : { body: raw ? (body as string | FormData) : JSON.stringify(body) }),
        signal: request.signal ? AbortSignal.any([request.signal, timeout]) : timeout,
      });
    } catch (err) {
      if (request.signal?.aborted) throw err;
      const detail = timeout.aborted ? `no answer within ${timeoutMs} ms` : "connection failed";
      throw new PlatformCallError(this.options.platform, call, { network: true, detail }, err);
    }
  }

  #error(call: string, facts: FailureFacts, res: PlatformAnswer, cause?: unknown): PlatformCallError {
    const retryAfter = res.headers.get("retry-after");
    const all = retryAfter !== null && facts.retryAfter === undefined ? { ...facts, retryAfter } : facts;
    return new PlatformCallError(this.options.platform, call, all, cause);
  }
}
