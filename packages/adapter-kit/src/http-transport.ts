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
import { HttpAnswer, HttpAnswerTooLargeError } from "./http-answer.js";

export { HttpAnswer, HttpAnswerTooLargeError, MAX_ANSWER_BYTES, type PlatformAnswer } from "./http-answer.js";

const IDLE_MS = 4_000;

/** A kept-alive socket found closed by its server as a call went out on it. */
const STALE_SOCKET = new Set(["ECONNRESET", "EPIPE"]);

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
