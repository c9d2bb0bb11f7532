// A POST written on a bare socket, for tests of what a server does with a body it refuses: fetch and
// node:http read the answer as soon as it comes and stop writing, so they cannot be the client that
// writes its whole body first (many do), nor one that keeps writing into a connection the server
// closed. Here the test says when reading starts; the answer comes back with the socket's error, if
// any, instead of a rejection, so a test can assert on both.
import { connect } from "node:net";

export interface RawPostOptions {
  /** The request target; "/" when left out. */
  path?: string;
  /** Body bytes written, in pieces of 64 KiB of "a" (the last one shorter). */
  bytes: number;
  /** "length" (the default): a Content-Length of `bytes`; "chunked": a chunk a piece, then the last chunk. */
  framing?: "length" | "chunked";
  /** Header lines besides Host and the framing's own. */
  headers?: Record<string, string>;
  /**
   * Body bytes written before the answer is read: 0 reads it all along, `bytes` (the default) only
   * once the whole request is handed to the kernel. Until then the socket is paused: the answer waits
   * in the kernel, where a reset from the server would drop it.
   */
  readAfter?: number;
  /** Then wait this long before reading, so the last bytes reach the server first (no event says so). */
  readDelayMs?: number;
  /**
   * Writes the pieces evenly over this long (each at its due time from the first, so a late timer
   * sends the overdue ones at once), as a client on a slow link; left out, as fast as the socket takes them.
   */
  spreadMs?: number;
  /** How long before the client gives up and destroys the socket (`closed` false); 30 s when left out. */
  giveUpMs?: number;
  /**
   * Writes the whole body even after reading the server's answer and FIN, then ends its side, as a
   * client that ignores an early answer does (Node's http.request with a file piped into it);
   * left out, the socket ends itself at the server's FIN and writes no more.
   */
  halfOpen?: boolean;
}

export interface RawAnswer {
  /** The status code, 0 when no status line was read. */
  status: number;
  statusLine: string;
  /** The header lines as read (CRLF between them). */
  head: string;
  /** Each header by its lower-case name (repeated ones joined with ", "). */
  headers: Record<string, string>;
  /** What followed the head, as read (a chunked answer keeps its framing). */
  body: string;
  /** Body bytes handed to the socket. */
  sent: number;
  /** The server's FIN was read. */
  ended: boolean;
  /** The connection closed before the client gave up. */
  closed: boolean;
  /** The socket's error code (EPIPE, ECONNRESET), when it had one. */
  error?: string;
}

const PIECE = Buffer.alloc(64 * 1024, 0x61);

/** POSTs `options.bytes` to 127.0.0.1:`port`; resolves once the connection closed, with what was read. */
export function rawPost(port: number, options: RawPostOptions): Promise<RawAnswer> {
  const {
    bytes,
    framing = "length",
    readAfter = bytes,
    readDelayMs = 0,
    spreadMs,
    giveUpMs = 30_000,
    halfOpen = false,
  } = options;
  const chunked = framing === "chunked";
  const frame = (size: number) => {
    const data = size === PIECE.length ? PIECE : PIECE.subarray(0, size);
    return chunked
      ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), data, Buffer.from("\r\n")])
      : data;
  };
  const head = Object.entries({
    host: `127.0.0.1:${port}`,
    ...options.headers,
    ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(bytes) }),
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");

  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: halfOpen });
    socket.pause();
    let answer = "";
    let sent = 0;
    let ended = false;
    let gaveUp = false;
    let error: string | undefined;
    const timer = setTimeout(() => {
      gaveUp = true;
      socket.destroy();
    }, giveUpMs);
    socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
    socket.on("end", () => (ended = true));
    socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ ...parse(answer), sent, ended, closed: !gaveUp, ...(error ? { error } : {}) });
    });

    let reading = false;
    const read = (delayMs = 0) => {
      if (reading) return;
      reading = true;
      if (delayMs > 0) setTimeout(() => socket.resume(), delayMs);
      else socket.resume();
    };
    // Writing goes on past the server's FIN, as a client still sending does: Node fails such a
    // write with EPIPE ("ended by the other party"), so a server that closes before the body's end
    // shows as that error.
    const stopped = () => socket.destroyed;
    const writePiece = () => {
      const size = Math.min(PIECE.length, bytes - sent);
      sent += size;
      const flushed = socket.write(frame(size));
      if (sent >= readAfter && readAfter < bytes) read();
      return flushed;
    };
    const last = () => {
      socket.write(chunked ? "0\r\n\r\n" : "", () => read(readDelayMs));
      if (halfOpen) socket.end();
    };

    const asFastAsTaken = () => {
      while (sent < bytes && !stopped()) if (!writePiece()) return void socket.once("drain", asFastAsTaken);
      if (!stopped()) last();
    };
    const pieces = Math.ceil(bytes / PIECE.length);
    let start = 0;
    let written = 0;
    const evenly = (spread: number) => {
      const due = Math.min(pieces, Math.floor(((Date.now() - start) / spread) * pieces) + 1);
      for (; written < due && !stopped(); written++) writePiece();
      if (stopped()) return;
      if (written < pieces) setTimeout(() => evenly(spread), spread / pieces);
      else last();
    };

    if (readAfter === 0) read();
    socket.on("connect", () => {
      socket.write(`POST ${options.path ?? "/"} HTTP/1.1\r\n${head}\r\n`);
      start = Date.now();
      if (spreadMs === undefined) asFastAsTaken();
      else evenly(spreadMs);
    });
  });
}

function parse(answer: string): Pick<RawAnswer, "status" | "statusLine" | "head" | "headers" | "body"> {
  const split = answer.indexOf("\r\n\r\n");
  const top = split < 0 ? answer : answer.slice(0, split);
  const [statusLine = "", ...lines] = top.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
    statusLine,
    head: lines.join("\r\n"),
    headers,
    body: split < 0 ? "" : answer.slice(split + 4),
  };
}
