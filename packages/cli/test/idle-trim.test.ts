import { channel } from "node:diagnostics_channel";
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { type HeapTrim, trimHeapWhenIdle } from "../src/idle-trim.js";

/** Short-lived garbage enough to grow the young generation past its starting size, as a start does. */
function churn(): number {
  let kept = 0;
  for (let i = 0; i < 200_000; i++) kept += { i, s: `row ${i}` }.s.length;
  return kept;
}

describe("trimHeapWhenIdle", () => {
  it("once idle, runs one memory-reducing collection that leaves less heap committed", async () => {
    churn();
    const trims: HeapTrim[] = [];
    await new Promise<void>((resolve) =>
      trimHeapWhenIdle(1, (trim) => {
        trims.push(trim);
        resolve();
      }),
    );
    expect(trims).toHaveLength(1);
    const [trim] = trims as [HeapTrim];
    expect(trim.heapMiB.after).toBeLessThan(trim.heapMiB.before);
    expect(trim.rssMiB.after).toBeGreaterThan(0);
  });

  it("does not leave gc() exposed to the service's code", async () => {
    const hadGc = "gc" in globalThis;
    await new Promise<void>((resolve) => trimHeapWhenIdle(1, () => resolve()));
    expect("gc" in globalThis).toBe(hadGc);
    expect(() => new Function("return gc")()).toThrow(ReferenceError);
  });

  it("cancelled before it ran, never collects", async () => {
    const trims: HeapTrim[] = [];
    const cancel = trimHeapWhenIdle(1, (trim) => trims.push(trim));
    cancel();
    // A later trim's report arrives after the cancelled one's timer would have fired.
    await new Promise<void>((resolve) => trimHeapWhenIdle(5, () => resolve()));
    expect(trims).toEqual([]);
  });

  it("waits while a request is in flight and collects once after it closed", async () => {
    const trims: HeapTrim[] = [];
    let trimmed!: () => void;
    const trimDone = new Promise<void>((resolve) => (trimmed = resolve));
    trimHeapWhenIdle(1, (trim) => {
      trims.push(trim);
      trimmed();
    });
    // What Node's HTTP server publishes for a request, in the same tick (before any idle timer).
    const response = new EventEmitter();
    channel("http.server.request.start").publish({ request: {}, response, socket: {}, server: {} });
    // Many idle periods pass with the request open: no collection.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(trims).toEqual([]);
    response.emit("close");
    await trimDone;
    expect(trims).toHaveLength(1);
  });
});
