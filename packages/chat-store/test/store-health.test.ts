import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { clock, openStore } from "./helpers.js";

let holder: ChildProcessWithoutNullStreams | undefined;
afterEach(() => {
  holder?.kill("SIGKILL");
  holder = undefined;
});

/** `sqlite3 <file>` holding the write lock until killed. */
async function holdWriteLock(file: string): Promise<void> {
  const child = spawn("sqlite3", [file], { stdio: "pipe" });
  holder = child;
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("locked")) resolve();
    });
    child.on("error", reject);
    child.stdin.write("BEGIN IMMEDIATE;\nSELECT 'locked';\n");
  });
}

// The busy timeout is far longer than the test's own timeout: anything that waited would fail it.
describe("store health while another process holds the write lock", () => {
  it("probes without waiting and reports read-only, then ok once the lock is gone", async () => {
    const db = openStore({ busyTimeoutMs: 60_000 });
    expect(db.health.state()).toBe("ok");
    await holdWriteLock(db.file);
    expect(db.health.probe("write")).toBe(false);
    expect(db.health.probe("read")).toBe(true);
    expect(db.health.state()).toBe("read-only");
    expect(db.health.admit("write")).toBe(db.health.retryAfterMs);
    expect(db.health.admit("read")).toBeUndefined();
    holder?.kill("SIGKILL");
    await new Promise((resolve) => holder?.once("exit", resolve));
    expect(db.health.state()).toBe("ok");
    expect(db.health.admit("write")).toBeUndefined();
  });

  it("a session lookup skips its freshness write instead of waiting on the lock", async () => {
    const t = clock();
    const db = openStore({ busyTimeoutMs: 60_000, now: t.now });
    const session = await db.sessions.create("alice");
    t.advance(5 * 60_000);
    await holdWriteLock(db.file);
    expect((await db.sessions.get(session.id))?.userId).toBe("alice");
  });
});

describe("a write while another process holds the write lock (durability power)", () => {
  it("runs on its own once the lock is free and is answered only after its WAL sync", async () => {
    const order: string[] = [];
    const db = openStore({
      busyTimeoutMs: 10_000,
      flushWal: async () => {
        order.push("sync start");
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push("sync end");
      },
    });
    await db.preferences.set("u", "warm", 1); // creates the WAL; its own sync
    order.length = 0;
    const child = spawn("sqlite3", [db.file], { stdio: "pipe" });
    holder = child;
    await new Promise<void>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("locked")) resolve();
      });
      child.on("error", reject);
      // Holds the lock for 300 ms, then commits: the store's write waits for it (busy timeout).
      child.stdin.write("BEGIN IMMEDIATE;\nSELECT 'locked';\n.shell sleep 0.3\nCOMMIT;\n");
    });
    await db.preferences.set("u", "k", 2).then(() => order.push("answer"));
    expect(order).toEqual(["sync start", "sync end", "answer"]);
    expect(await db.preferences.get("u", "k")).toBe(2);
  });
});
