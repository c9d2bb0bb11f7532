// skipBodyInParser on a socket whose parser is shaped as Node 24's server parser is (its hooks under
// index keys, named by Node's lib: parserOnBody at 3, the bound onParserExecute at 5): what it
// refuses to switch, what the switch does to each hook, and what putting it back does. The same
// over real HTTP is in node-body-skip.test.ts.
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { skipBodyInParser } from "../src/node-parser-skip.js";

function parserOnBody() {}
function onParserExecute(ret: number) {
  return `parsed ${ret}`;
}

/** A socket with `bytesRead` and a parser holding Node's hooks (`without` leaves some out). */
function nodeLikeSocket(options: { consumed?: boolean; without?: number[] } = {}) {
  const parser: Record<string | number, unknown> = {
    3: parserOnBody,
    4: function parserOnMessageComplete() {},
    5: onParserExecute.bind(undefined),
    _consumed: options.consumed ?? true,
  };
  for (const key of options.without ?? []) delete parser[key];
  const socket = Object.assign(new EventEmitter(), { parser, bytesRead: 100 });
  return { socket, parser, asSocket: socket as unknown as Socket };
}

describe("skipBodyInParser leaves the parser alone", () => {
  it("on a socket without a parser, or whose parser is fed from JavaScript (not consumed)", () => {
    const bare = Object.assign(new EventEmitter(), { bytesRead: 0 }) as unknown as Socket;
    expect(skipBodyInParser(bare, () => {})).toBeUndefined();
    const { parser, asSocket } = nodeLikeSocket({ consumed: false });
    expect(skipBodyInParser(asSocket, () => {})).toBeUndefined();
    expect(parser[3]).toBe(parserOnBody);
  });

  it.each([[3], [5]])("whose hook at %i is not found by its name", (missing) => {
    const { parser, asSocket } = nodeLikeSocket({ without: [missing] });
    const kept = missing === 3 ? 5 : 3;
    const before = parser[kept];
    expect(skipBodyInParser(asSocket, () => {})).toBeUndefined();
    expect(parser[kept]).toBe(before);
  });
});

describe("skipBodyInParser's switch", () => {
  it("unsets the body hook and counts each read after it from the socket's byte count, not the read under way", () => {
    const { socket, parser, asSocket } = nodeLikeSocket();
    const counted: number[] = [];
    expect(skipBodyInParser(asSocket, (n) => counted.push(n))).toBeTypeOf("function");
    expect(parser[3]).toBeUndefined();
    const execute = parser[5] as (ret: number) => unknown;
    // The read under way at the switch (already in bytesRead) reports after it: nothing counted.
    expect(execute(65_536)).toBe("parsed 65536");
    socket.bytesRead += 4_096;
    expect(execute(4_096)).toBe("parsed 4096");
    socket.bytesRead += 10;
    execute(10);
    expect(counted).toEqual([4_096, 10]);
  });

  it("is put back by the function it returns, and by the socket's close", () => {
    const first = nodeLikeSocket();
    const execute = first.parser[5];
    skipBodyInParser(first.asSocket, () => {})?.();
    expect(first.parser[3]).toBe(parserOnBody);
    expect(first.parser[5]).toBe(execute);

    const second = nodeLikeSocket();
    skipBodyInParser(second.asSocket, () => {});
    second.socket.emit("close");
    expect(second.parser[3]).toBe(parserOnBody);
  });

  it("leaves the execute hook as Node left it when Node freed the parser first (cleared to null)", () => {
    const { socket, parser, asSocket } = nodeLikeSocket();
    skipBodyInParser(asSocket, () => {});
    parser[5] = null;
    socket.emit("close");
    expect(parser[5]).toBeNull();
    expect(parser[3]).toBe(parserOnBody);
  });
});
