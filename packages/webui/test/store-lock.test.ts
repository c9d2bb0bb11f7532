import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

// Another process (the sqlite3 shell) holds the store's write lock. The store's busy timeout is
// set longer than the client waits (15 s): a request that waited on the lock would fail the test
// by timing out, without any wall-clock assertion.
const LONG_BUSY_MS = 60_000;

let h: Harness | undefined;
let holder: ChildProcessWithoutNullStreams | undefined;
afterEach(async () => {
  holder?.kill("SIGKILL");
  holder = undefined;
  await h?.close();
  h = undefined;
});

/** Starts `sqlite3 <file>` and returns once it holds the write lock (BEGIN IMMEDIATE). */
async function holdWriteLock(file: string): Promise<{ release(): Promise<void> }> {
  const child = spawn("sqlite3", [file], { stdio: "pipe" });
  holder = child;
  let out = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sqlite3 did not lock in time: ${out}`)), 10_000);
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("locked")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on("error", reject);
    child.stdin.write("BEGIN IMMEDIATE;\nSELECT 'locked';\n");
  });
  return {
    release: () =>
      new Promise<void>((resolve) => {
        child.on("exit", () => resolve());
        child.stdin.end("ROLLBACK;\n.quit\n");
      }),
  };
}

describe("store locked by another process", () => {
  it("answers a write with 503 and Retry-After at once, reports it on /health, and serves routes that need no store", async () => {
    h = await startHarness({ busyTimeoutMs: LONG_BUSY_MS });
    const c = h.client();
    expect((await c.post("/conversations/create", { title: "before" })).status).toBe(200);
    const lock = await holdWriteLock(h.db.file);

    const create = await c.post("/conversations/create", { title: "during" });
    expect(create.status).toBe(503);
    expect(create.body.error.code).toBe("store_unavailable");
    expect(Number(create.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const turn = await c.post("/invoke", { input: "hello", conversationId: "locked-conv" });
    expect(turn.status).toBe(503);

    const health = await c.get("/health");
    expect(health.status).toBe(503);
    expect(health.headers.get("retry-after")).not.toBeNull();
    expect(health.body).toMatchObject({ success: false, status: "unavailable", store: "read-only" });

    // Needs no store at all; and reads still work while only the write lock is held.
    expect((await c.get("/tools")).status).toBe(200);
    const list = await c.get("/conversations");
    expect(list.status).toBe(200);
    expect(list.body.conversations.map((x: { title: string }) => x.title)).toEqual(["before"]);

    await lock.release();
    expect((await c.get("/health")).body).toEqual({ success: true, status: "ok", store: "ok" });
    expect((await c.post("/conversations/create", { title: "after" })).status).toBe(200);
    expect((await c.post("/invoke", { input: "hello", conversationId: "free-conv" })).status).toBe(200);
  });
});
