import { Readable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { readBody, readNodeBody } from "../src/index.js";

/** A body that never ends (as a chunked request may be): counts what was pulled and whether it was cancelled. */
function endless(chunkBytes: number) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      seen.pulled++;
      controller.enqueue(new Uint8Array(chunkBytes).fill(0x61));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

function streamOf(...chunks: number[][]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(new Uint8Array(c));
      controller.close();
    },
  });
}

describe("readBody", () => {
  it("returns the exact bytes of a body that arrives in several chunks", async () => {
    const result = await readBody(streamOf([1, 2], [], [3, 0xff]), 10);
    expect(result).toEqual({ ok: true, bytes: new Uint8Array([1, 2, 3, 0xff]) });
  });

  it("accepts a body of exactly the limit and refuses one byte more", async () => {
    expect((await readBody(streamOf([1, 2], [3]), 3)).ok).toBe(true);
    expect(await readBody(streamOf([1, 2], [3, 4]), 3)).toEqual({ ok: false, reason: "too_large" });
  });

  it("stops pulling a body that never ends once past the limit, and cancels it", async () => {
    const { stream, seen } = endless(64 * 1024);
    const result = await readBody(stream, 1024 * 1024);
    expect(result).toEqual({ ok: false, reason: "too_large" });
    // 16 chunks make the limit; the 17th crosses it. A stream may pull one ahead (highWaterMark).
    expect(seen.pulled).toBeLessThanOrEqual(18);
    expect(seen.cancelled).toBe(true);
  });

  it("reads no body as empty", async () => {
    expect(await readBody(null, 10)).toEqual({ ok: true, bytes: new Uint8Array() });
  });
});

describe("readNodeBody", () => {
  it("returns the exact bytes of a Node stream that arrives in several chunks", async () => {
    const source = Readable.from([Buffer.from([1, 2]), Buffer.from([3, 0xff])]);
    const result = await readNodeBody(source, 10);
    expect(result.ok && [...result.bytes]).toEqual([1, 2, 3, 0xff]);
  });

  it("accepts a body of exactly the limit and refuses one byte more", async () => {
    expect((await readNodeBody(Readable.from([Buffer.from([1, 2, 3])]), 3)).ok).toBe(true);
    const over = Readable.from([Buffer.from([1, 2]), Buffer.from([3, 4])]);
    expect(await readNodeBody(over, 3)).toEqual({ ok: false, reason: "too_large" });
  });

  it("drops what a stream that never ends sends past the limit, and destroys it at the drain's byte bound", async () => {
    let pulled = 0;
    const source = new Readable({
      read() {
        pulled++;
        this.push(Buffer.alloc(64 * 1024, 0x61));
      },
    });
    const closed = new Promise((r) => source.once("close", r));
    const bound = { bytes: 2 * 1024 * 1024, ms: 60_000 };
    expect(await readNodeBody(source, 1024 * 1024, bound)).toEqual({ ok: false, reason: "too_large" });
    await closed;
    expect(source.destroyed).toBe(true);
    // 17 chunks cross the limit, 33 more cross the bound; a stream may read one ahead.
    expect(pulled).toBeGreaterThanOrEqual(17 + 33);
    expect(pulled).toBeLessThanOrEqual(17 + 33 + 2);
  });

  it("destroys a stream past the limit that goes quiet at the drain's time bound, not before", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const source = new Readable({ read() {} });
      const reading = readNodeBody(source, 10, { bytes: 1024, ms: 5_000 });
      source.push(Buffer.alloc(11));
      expect(await reading).toEqual({ ok: false, reason: "too_large" });
      source.push(Buffer.alloc(100));
      vi.advanceTimersByTime(4_999);
      expect(source.destroyed).toBe(false);
      vi.advanceTimersByTime(1);
      expect(source.destroyed).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("reads a body past the limit to its end when it ends within the bound", async () => {
    const source = new Readable({ read() {} });
    const reading = readNodeBody(source, 10, { bytes: 1024, ms: 60_000 });
    source.push(Buffer.alloc(11));
    expect(await reading).toEqual({ ok: false, reason: "too_large" });
    const ended = new Promise((r) => source.once("end", r));
    source.push(Buffer.alloc(1000));
    source.push(null);
    await ended;
    expect(source.errored).toBeNull();
  });

  it("fails when the stream fails or closes before its end (the client went away)", async () => {
    const failing = new Readable({ read() {} });
    const reading = readNodeBody(failing, 10);
    failing.destroy(new Error("aborted"));
    await expect(reading).rejects.toThrow("aborted");
    const closing = new Readable({ read() {}, emitClose: true });
    const read = readNodeBody(closing, 10);
    closing.destroy();
    await expect(read).rejects.toThrow("closed before its end");
  });
});
