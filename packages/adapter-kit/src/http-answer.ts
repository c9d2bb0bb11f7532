// A platform call's answer as the transport keeps it (http-transport.ts): status, headers and the
// body held in memory up to a bound, decoded as its Content-Encoding says when read, as much of
// fetch's Response as a platform client reads.
import type { IncomingMessage } from "node:http";
import { brotliDecompress, constants, gunzip, inflate, inflateRaw, type ZlibOptions } from "node:zlib";

/** The most of an answer's body kept by default (raw, and again decoded). */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** How much of an answer over the bound is kept to name what it was (`HttpAnswerTooLargeError.head`). */
const HEAD_BYTES = 16 * 1024;

/** A call's answer, as much of fetch's Response as a platform client reads. */
export interface PlatformAnswer {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
  json(): Promise<unknown>;
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
