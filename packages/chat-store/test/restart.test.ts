import { type ChildProcess, spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { openStore, tempRoot } from "./helpers.js";

const pkg = resolve(import.meta.dirname, "..");

/** Resolves with the READY payload, or rejects with the child's stderr. */
function waitReady(child: ChildProcess, timeoutMs: number): Promise<{ session: string }> {
  return new Promise((ok, fail) => {
    let out = "";
    let err = "";
    const timer = setTimeout(
      () => fail(new Error(`child not ready after ${timeoutMs} ms; stderr: ${err}`)),
      timeoutMs,
    );
    child.stdout!.on("data", (d) => {
      out += d;
      const line = out.split("\n").find((l) => l.startsWith("READY "));
      if (line) {
        clearTimeout(timer);
        ok(JSON.parse(line.slice(6)));
      }
    });
    child.stderr!.on("data", (d) => {
      err += d;
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`child exited with ${code} before READY; stderr: ${err}`));
    });
  });
}

describe("restart across processes", () => {
  // The child imports the built package (plain node, no TypeScript loader): `pnpm build` runs before
  // the tests (README test command, CI). Rebuilding here would race other suites reading dist/.

  it("everything a killed (SIGKILL) process wrote is there when the store is reopened", async () => {
    const root = tempRoot();
    const child = spawn(
      process.execPath,
      [join(pkg, "test/fixtures/restart-child.mjs"), pathToFileURL(join(pkg, "dist/index.js")).href, root],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let ready: { session: string };
    try {
      ready = await waitReady(child, 20_000);
    } finally {
      child.kill("SIGKILL");
    }
    await new Promise((r) => (child.exitCode !== null || child.signalCode ? r(null) : child.once("exit", r)));
    expect(child.signalCode).toBe("SIGKILL");

    const db = openStore({ appRoot: root, path: "state/chat.db" });
    expect(db.migration.applied).toEqual([]);
    expect(
      (await db.conversations.list("alice")).map((c) => [c.conversationId, c.title, c.messageCount]),
    ).toEqual([
      ["c2", "final name", 0],
      ["c1", "written by the child", 2],
    ]);
    expect(await db.preferences.getAll("alice")).toEqual({ theme: { mode: "dark" } });
    const memory = db.createMemory({ canSummarize: false });
    expect(await memory.load({ userId: "alice", conversationId: "c1" })).toEqual([
      { role: "user", content: "written by the child" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call-1", name: "rm", arguments: { path: "/tmp/x" } }],
      },
    ]);
    const run = await db.runStore.get("thread-1");
    expect(run?.options).toEqual({ threadId: "thread-1", userId: "alice", conversationId: "c1" });
    expect(run?.pendingCall.name).toBe("rm");
    expect((await db.inbox.unfinished()).map((r) => [r.text, r.status])).toEqual([
      ["first", "running"],
      ["second", "queued"],
    ]);
    expect(
      await db.inbox.accept({
        gateway: "telegram",
        dedupKey: "u1",
        thread: "chat:1",
        text: "x",
        origin: { gateway: "telegram", thread: "chat:1" },
      }),
    ).toEqual({ accepted: false, duplicate: true });
    expect((await db.sessions.get(ready.session))?.userId).toBe("alice");
  });
});
