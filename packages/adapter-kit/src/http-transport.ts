// The platform calls' HTTP transport: node:http(s) through one keep-alive pool per scheme (Node's
// Agent keeps the sockets of each origin apart), not the global fetch. fetch builds a Request,
// Headers, a web stream and a Response per call: on the PostgreSQL ingest bench with callbacks the
// server's CPU a message was 0.59-0.74x of fetch's once callbacks went this way (docs/benchmarks.md
// "ingest-pg"), and a streamed reply is several platform calls (docs/benchmarks.md "adapter-send").
//
// Its rules, kept for every caller:
// - Redirects are not followed: a 3xx is an answer like any other (the caller's signed or
//   authorised request goes to the URL it named, nowhere else).
// - An idle socket is closed after 4 s (before Node's own servers close theirs at 5 s), or 1 s
//   before a server's `Keep-Alive: timeout=<s>` (Node's Agent reads it only when it has a timeout
//   of its own): a call seldom goes out on a connection the server is closing.
// - HTTP_PROXY / HTTPS_PROXY (minus NO_PROXY) are honoured when Node runs with NODE_USE_ENV_PROXY=1 or
//   --use-env-proxy, as fetch and Node's global agents honour them (Node's "Built-in Proxy Support":
//   an Agent of one's own only with `proxyEnv`).
// - One timeout bounds the whole exchange, head and body; the caller's abort rejects with the
//   signal's reason, as fetch does; every other failure is Node's error, its cause named.
// - A kept answer over 32 MiB (its bytes, and again once decoded) fails with HttpAnswerTooLargeError:
//   fetch had no bound, but this keeps the whole body in memory. The largest a platform client reads
//   is far below: Telegram getUpdates' at most 100 updates of 4,096-character messages, a Matrix
//   /sync filtered to 50 timeline events a room.
// - A header value's leading and trailing tabs, spaces, CRs and LFs are dropped, as fetch normalizes
//   it (a token read from a file with its newline still works); a newline or control character inside
//   is refused before any connection with HttpHeaderError naming the header, never its value.
// - A call marked `repeatable` (a read: Telegram getUpdates, getMe, getFile) that fails on a reused
//   socket before any byte of an answer (ECONNRESET, EPIPE: the server closed that idle socket as the
//   call went out, its idle timeout firing with ours late behind a busy event loop) is sent again, as
//   Node's http docs advise (`request.reusedSocket`); every other call fails as Node reports it.
import {
  Agent as HttpAgent,
  type IncomingMessage,
  request as httpRequest,
  validateHeaderName,
  validateHeaderValue,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { brotliDecompress, constants, gunzip, inflate, inflateRaw, type ZlibOptions } from "node:zlib";

const IDLE_MS = 4_000;

/** How much of an answer over the bound is kept to name what it was (`HttpAnswerTooLargeError.head`). */
const HEAD_BYTES = 16 * 1024;

/** A kept-alive socket found closed by its server as a call went out on it. */
const STALE_SOCKET = new Set(["ECONNRESET", "EPIPE"]);

/** The most of an answer's body kept by default (raw, and again decoded). */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * What Node's fetch sends when the caller does not say (measured on Node 24): a platform call sent
 * here carries the same headers it carried through fetch.
 */
export const FETCH_DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  accept: "*/*",
  "accept-language": "*",
  "sec-fetch-mode": "cors",
  "user-agent": "node",
  "accept-encoding": "gzip, deflate",
};

export interface HttpRequest {
  method: string;
  /** Sent as given (lower-case names); `content-length` is set from the body. */
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** The longest the whole exchange may take: the answer's head, then its body. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** What a failure while the body is read becomes (default: Node's error, or the timeout's). */
  bodyFailure?: (err: unknown) => unknown;
  /** The most of the body kept, raw and decoded (default MAX_ANSWER_BYTES); not counted after `discard()`. */
  maxBytes?: number;
  /**
   * The call may reach the server twice without harm (a read): one that failed on a reused socket
   * before any answer is sent again. Default false (a send is the outbox's to retry).
   */
  repeatable?: boolean;
}

/** A call's answer, as much of fetch's Response as a platform client reads. */
export interface PlatformAnswer {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** No answer, or no whole answer, within the call's timeout. */
export class HttpTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    /** The answer's head had arrived: its body did not end in time. */
    readonly headReceived: boolean,
  ) {
    super(
      headReceived ? `the answer did not end within ${timeoutMs} ms` : `no answer within ${timeoutMs} ms`,
    );
    this.name = "HttpTimeoutError";
  }
}

/** An answer's body over the bound: the call failed with the platform's answer (`status`), not the network. */
export class HttpAnswerTooLargeError extends Error {
  constructor(
    readonly maxBytes: number,
    /** The answer's status: it came, too large to keep. */
    readonly status: number,
    /**
     * The body's first bytes as they came (at most 16 KiB, before any decoding): what the answer was
     * (Telegram: the update_id of an update too large to read).
     */
    readonly head: Buffer = Buffer.alloc(0),
  ) {
    super(`the answer is over ${maxBytes} bytes`);
    this.name = "HttpAnswerTooLargeError";
  }
}

/** A header HTTP cannot carry (a newline or control character inside): refused before any connection. */
export class HttpHeaderError extends TypeError {
  constructor(
    readonly header: string,
    cause: unknown,
  ) {
    // The value is not named: it is often a secret.
    super(`header ${JSON.stringify(header)} holds a character HTTP does not allow (a newline inside?)`, {
      cause,
    });
    this.name = "HttpHeaderError";
  }
}

export interface HttpTransportOptions {
  /** Where the proxy settings are read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Node's own flags (default `process.execArgv`), for `--use-env-proxy`. */
  execArgv?: readonly string[];
  /** How long a pooled socket may stay idle before it is closed (default 4 000 ms; tests). */
  idleMs?: number;
}

export class HttpTransport {
  readonly #http: HttpAgent;
  readonly #https: HttpsAgent;

  constructor(options: HttpTransportOptions = {}) {
    const env = options.env ?? process.env;
    const flags = [...(options.execArgv ?? process.execArgv), ...(env.NODE_OPTIONS ?? "").split(/\s+/)];
    const envProxy = env.NODE_USE_ENV_PROXY === "1" || flags.includes("--use-env-proxy");
    const agentOptions = {
      keepAlive: true,
      timeout: options.idleMs ?? IDLE_MS,
      ...(envProxy ? { proxyEnv: env } : {}),
    };
    this.#http = new HttpAgent(agentOptions);
    this.#https = new HttpsAgent(agentOptions);
  }

  /** Resolves at the answer's head; its body is read (or dropped) through the answer. */
  request(target: string | URL, o: HttpRequest): Promise<HttpAnswer> {
    let url: URL;
    try {
      url = typeof target === "string" ? new URL(target) : target;
    } catch (err) {
      return Promise.reject(err);
    }
    const secure = url.protocol === "https:";
    if (!secure && url.protocol !== "http:")
      return Promise.reject(new Error(`unsupported protocol ${url.protocol}`));
    const { signal } = o;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const bytes = typeof o.body === "string" ? Buffer.from(o.body, "utf8") : o.body;
      const given = trimmedValues(o.headers);
      const headers = bytes ? { ...given, "content-length": String(bytes.byteLength) } : given;
      const open = () =>
        (secure ? httpsRequest : httpRequest)(url, {
          method: o.method,
          agent: secure ? this.#https : this.#http,
          headers,
        });
      let req: ReturnType<typeof httpRequest>;
      try {
        req = open();
      } catch (err) {
        reject(refusedHeader(headers, err));
        return;
      }
      let answer: HttpAnswer | undefined;
      let settled = false;
      const end = (err?: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (err === undefined) answer?.complete();
        else if (answer) answer.fail(err);
        else reject(err);
      };
      const onAbort = () => {
        end(signal?.reason);
        req.destroy();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const timer = setTimeout(() => {
        end(new HttpTimeoutError(o.timeoutMs, answer !== undefined));
        req.destroy();
      }, o.timeoutMs);
      timer.unref();
      const send = (sent: ReturnType<typeof httpRequest>) => {
        // `on`, not `once`: a destroy after the answer (a body still arriving at the timeout) errors again.
        sent.on("error", (err) => {
          // The socket's server had closed it (idle) as this call went out: no answer began, so a
          // repeatable call goes out again; the dead socket is gone from the pool, and a try on a new
          // connection (not reused) is the last.
          const stale = sent.reusedSocket && STALE_SOCKET.has((err as { code?: string }).code ?? "");
          if (o.repeatable && stale && answer === undefined && !settled) {
            req = open();
            send(req);
            return;
          }
          end(err);
        });
        sent.on("response", (res: IncomingMessage) => {
          answer = new HttpAnswer(res, o.bodyFailure, o.maxBytes);
          const got = answer;
          res.on("data", (chunk: Buffer) => {
            if (got.push(chunk)) return;
            end(new HttpAnswerTooLargeError(got.maxBytes, got.status, got.head));
            sent.destroy();
          });
          res.on("end", () => end());
          res.on("error", (err) => end(err));
          // A socket closed before the body's end (without an error event of its own).
          res.on("close", () => {
            if (!res.complete) end(new Error("the answer broke off"));
          });
          resolve(answer);
        });
        sent.end(bytes);
      };
      send(req);
    });
  }

  /** Closes every pooled socket (a test's or a bench's end). */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

/** The transport every platform client uses (its pools shared, as fetch's global one was). */
export const httpTransport = new HttpTransport();

// Edge whitespace as fetch's header value normalization strips it (HTTP tab, space, CR, LF).
const EDGE = /^[\t\n\r ]|[\t\n\r ]$/;
const EDGES = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/** The headers with each value's edge whitespace dropped; the same object when none has any. */
function trimmedValues(headers: Record<string, string>): Record<string, string> {
  let out = headers;
  for (const name in headers) {
    const value = headers[name] as string;
    if (!EDGE.test(value)) continue;
    if (out === headers) out = { ...headers };
    out[name] = value.replace(EDGES, "");
  }
  return out;
}

/** Node refused the request's headers: which one (looked for only then, so a call pays nothing). */
function refusedHeader(headers: Record<string, string>, err: unknown): unknown {
  for (const [name, value] of Object.entries(headers)) {
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch {
      return new HttpHeaderError(name, err);
    }
  }
  return err;
}

/** The first `n` bytes of `chunks`. */
function prefix(chunks: readonly Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let size = 0;
  for (const c of chunks) {
    if (size >= n) break;
    const part = c.subarray(0, n - size);
    out.push(part);
    size += part.byteLength;
  }
  return Buffer.concat(out);
}

// Lenient on a stream cut short, as fetch's decoding is.
const ZLIB: ZlibOptions = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };

/** Undoes one coding, refusing an output over `max` bytes (a small body may inflate without bound). */
function decompress(bytes: Buffer, coding: string, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Buffer) => (err ? reject(err) : resolve(out));
    const zlib = { ...ZLIB, maxOutputLength: max };
    if (coding === "gzip" || coding === "x-gzip") gunzip(bytes, zlib, done);
    // "deflate" is meant to be zlib-wrapped, but some servers send it raw: the first byte tells.
    else if (coding === "deflate")
      ((bytes[0] ?? 0) & 0x0f) === 0x08 ? inflate(bytes, zlib, done) : inflateRaw(bytes, zlib, done);
    else if (coding === "br") brotliDecompress(bytes, { maxOutputLength: max }, done);
    else resolve(bytes); // identity, or a coding nobody asked for: handed on as it came
  });
}

export class HttpAnswer implements PlatformAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  /** The most of the body kept, raw and decoded. */
  readonly maxBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;
  #head: Buffer = Buffer.alloc(0);
  #keep = true;
  readonly #body: Promise<void>;
  #complete!: () => void;
  #fail!: (err: unknown) => void;
  readonly #failure: ((err: unknown) => unknown) | undefined;

  constructor(res: IncomingMessage, failure?: (err: unknown) => unknown, maxBytes = MAX_ANSWER_BYTES) {
    this.#failure = failure;
    this.maxBytes = maxBytes;
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? "";
    this.ok = this.status >= 200 && this.status <= 299;
    const raw = res.headers;
    this.headers = {
      get(name: string): string | null {
        const v = raw[name.toLowerCase()];
        return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
      },
    };
    this.#body = new Promise<void>((ok, no) => {
      this.#complete = ok;
      this.#fail = no;
    });
    // Nobody may read a body that failed (a callback drops its answer's).
    this.#body.catch(() => {});
  }

  /** @internal False when the chunk takes a kept body over `maxBytes` (the body is dropped). */
  push(chunk: Buffer): boolean {
    if (!this.#keep) return true;
    this.#size += chunk.byteLength;
    if (this.#size > this.maxBytes) {
      this.#chunks.push(chunk);
      this.#head = prefix(this.#chunks, HEAD_BYTES);
      this.#chunks = [];
      return false;
    }
    this.#chunks.push(chunk);
    return true;
  }
  /** @internal The first bytes of a body dropped for its size. */
  get head(): Buffer {
    return this.#head;
  }
  /** @internal */
  complete(): void {
    this.#complete();
  }
  /** @internal */
  fail(err: unknown): void {
    this.#fail(this.#failure ? this.#failure(err) : err);
  }

  /** The body's bytes, decoded as the answer's Content-Encoding says. */
  async bytes(): Promise<Buffer> {
    await this.#body;
    const all = this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks);
    const coding = this.headers.get("content-encoding");
    if (!coding) return all;
    // Codings are listed in the order they were applied: undone last first.
    let out = all;
    try {
      for (const c of coding.toLowerCase().split(",").reverse())
        out = await decompress(out, c.trim(), this.maxBytes);
    } catch (err) {
      if ((err as { code?: unknown }).code !== "ERR_BUFFER_TOO_LARGE") throw err;
      throw new HttpAnswerTooLargeError(this.maxBytes, this.status, all.subarray(0, HEAD_BYTES));
    }
    return out;
  }

  /** The body as UTF-8 text, a byte order mark dropped (as fetch's `text()`). */
  async text(): Promise<string> {
    const b = await this.bytes();
    const bom = b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
    return (bom ? b.subarray(3) : b).toString("utf8");
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /**
   * Drops the body unread: the connection goes back to the pool once it ends (closed instead if it
   * has not ended by the call's timeout).
   */
  discard(): void {
    this.#keep = false;
    this.#chunks = [];
  }
}
