// The link's statement queue (serial.ts): one task at a time, in order, a failure not stopping the
// next, and `runningSince` telling when the running task started (what the health check times).
import { afterEach, describe, expect, it, vi } from "vitest";
import { serialQueue } from "../src/serial.js";

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("serialQueue", () => {
  afterEach(() => vi.restoreAllMocks());

  it("starts a task only after the one before settled, in the order queued; a failure does not stop the next", async () => {
    const queue = serialQueue();
    const started: string[] = [];
    const a = deferred<string>();
    const b = deferred<string>();
    const ra = queue(() => {
      started.push("a");
      return a.promise;
    });
    const rb = queue(() => {
      started.push("b");
      return b.promise;
    });
    const rc = queue(async () => {
      started.push("c");
      return "c";
    });
    await tick();
    expect(started).toEqual(["a"]);
    a.reject(new Error("a failed"));
    await expect(ra).rejects.toThrow("a failed");
    await tick();
    expect(started).toEqual(["a", "b"]);
    b.resolve("b");
    expect(await rb).toBe("b");
    expect(await rc).toBe("c");
    expect(started).toEqual(["a", "b", "c"]);
  });

  it("runningSince is when the running task started, not when it was queued, and undefined between tasks", async () => {
    let now = 1000;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const queue = serialQueue();
    expect(queue.runningSince).toBeUndefined();
    const a = deferred<void>();
    const b = deferred<void>();
    const ra = queue(() => a.promise);
    await tick();
    now = 2000;
    const rb = queue(() => b.promise);
    await tick();
    expect(queue.runningSince).toBe(1000);
    now = 3000;
    a.resolve();
    await ra;
    await tick();
    expect(queue.runningSince).toBe(3000);
    b.reject(new Error("b failed"));
    await rb.catch(() => undefined);
    await tick();
    expect(queue.runningSince).toBeUndefined();
  });

  it("settledAt is when the last task settled, answered or failed (the health check's quiet time), undefined before the first", async () => {
    let now = 1000;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const queue = serialQueue();
    const a = deferred<void>();
    const b = deferred<void>();
    const ra = queue(() => a.promise);
    const rb = queue(() => b.promise);
    await tick();
    expect(queue.settledAt).toBeUndefined();
    now = 2000;
    a.resolve();
    await ra;
    await tick();
    expect(queue.settledAt).toBe(2000);
    now = 3500;
    b.reject(new Error("b failed"));
    await rb.catch(() => undefined);
    await tick();
    expect(queue.settledAt).toBe(3500);
  });
});
