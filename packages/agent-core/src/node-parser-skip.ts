// Skipping a refused body inside Node's HTTP parser instead of copying it out to be dropped.
//
// Node's parser copies every body piece into a new Buffer before any JavaScript sees it
// (node_http_parser.cc, on_body: Buffer::Copy, then the `kOnBody` callback); when `kOnBody` is not a
// function it skips the bytes and copies nothing. A drain that reads and drops 64 MiB through 'data'
// events leaves 64 MB of Buffers as garbage until V8's external-memory trigger collects them: a
// server's RSS grew by up to 72 MB a flood. Neither hook is public API: both are found by the names
// Node's own lib gives their functions, and anything else (another runtime, a parser fed from
// JavaScript instead of reading the socket itself) gets `undefined`, and the caller drains the
// ordinary way.
import type { Socket } from "node:net";

type Hooks = Record<string | number, unknown> & { _consumed?: unknown };

function keyOf(parser: Hooks, name: string): string | undefined {
  return Object.keys(parser).find((key) => {
    const value = parser[key];
    return typeof value === "function" && value.name === name;
  });
}

/**
 * Makes the parser reading `socket` skip body bytes without copying them, calling `onBytes` with
 * the bytes of each read after this call. Returns the function that puts the parser back (it may run
 * more than once; it also runs when the socket closes, before Node can hand the parser to another
 * connection), or undefined when the parser cannot be switched.
 */
export function skipBodyInParser(socket: Socket, onBytes: (count: number) => void): (() => void) | undefined {
  const parser = (socket as unknown as { parser?: Hooks | null }).parser;
  // Consumed: the parser reads the socket's handle itself and reports each read to `onExecute`.
  if (parser?._consumed !== true) return undefined;
  const bodyKey = keyOf(parser, "parserOnBody");
  const executeKey = keyOf(parser, "bound onParserExecute");
  if (bodyKey === undefined || executeKey === undefined) return undefined;
  const onBody = parser[bodyKey];
  const onExecute = parser[executeKey] as (...args: unknown[]) => unknown;
  // Counted from the socket's byte count: the read under way when this runs was parsed (its body
  // handed out) already, yet reports to `onExecute` after.
  let seen = socket.bytesRead;
  const counting = function (this: unknown, ...args: unknown[]) {
    const result = onExecute.apply(this, args);
    const read = socket.bytesRead;
    if (read > seen) onBytes(read - seen);
    seen = read;
    return result;
  };
  parser[bodyKey] = undefined;
  parser[executeKey] = counting;
  const restore = () => {
    // The body hook is set once per parser, and parsers are pooled: it must be back before reuse.
    parser[bodyKey] = onBody;
    // Node clears the execute hook when it frees the parser; put ours back only where it still is.
    if (parser[executeKey] === counting) parser[executeKey] = onExecute;
  };
  socket.once("close", restore);
  return restore;
}
