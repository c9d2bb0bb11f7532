// A tick survives SIGKILL of its process at the two moments that belong to the scheduler: after the
// claim (before the inbox record) and right after the record (before the turn). The restarted
// process sends the tick's reply once. Each run is a separate Node process (test/fixtures/crash-child.mjs,
// on the packages' dist); agent-core's AGENTSVC_FAULT point kills it with SIGKILL.
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../../../tooling/vitest.temp-dirs.js";

const child = resolve(import.meta.dirname, "fixtures/crash-child.mjs");
const NOW = Date.UTC(2026, 11, 1, 9, 1, 10);

function runChild(dir: string, fault = ""): Promise<{ signal: string | null; sent: string[] }> {
  return new Promise((done, fail) => {
    const proc = spawn(process.execPath, [child, dir, String(NOW)], {
      env: { ...process.env, AGENTSVC_FAULT: fault },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    proc.stdout.on("data", (c) => (out += String(c)));
    proc.stderr.on("data", (c) => (err += String(c)));
    // Bounded: a hung child fails the test instead of holding it.
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      fail(new Error(`child hung: ${err}`));
    }, 30_000);
    proc.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (signal === null && code !== 0) return fail(new Error(`child failed (${code}): ${err}`));
      const line = /DONE (.*)/.exec(out)?.[1];
      done({ signal, sent: line ? (JSON.parse(line) as string[]) : [] });
    });
  });
}

// Three child starts a test, each bounded at 30 s: under load they take longer than the default 20 s.
describe("a tick across SIGKILL of its process", { timeout: 120_000 }, () => {
  for (const fault of ["schedule-claimed", "after-record"]) {
    it(`killed at ${fault}: the restart sends the tick's reply once, and the tick ends delivered`, async () => {
      const dir = testTempDir("agentsvc-scheduler-crash-");
      const first = await runChild(dir, `${fault}:1`);
      expect(first.signal).toBe("SIGKILL");
      expect(first.sent).toEqual([]);
      const second = await runChild(dir);
      expect(second.sent).toEqual(["Digest."]);
      // A third start finds nothing left to do.
      expect((await runChild(dir)).sent).toEqual([]);
      const db = ChatDb.open({ appRoot: dir, path: "data/chat.db" });
      try {
        expect(await db.scheduleTicks.recent("digest")).toMatchObject([
          { tickAt: Date.UTC(2026, 11, 1, 9, 1), outcome: "delivered" },
        ]);
      } finally {
        db.close();
      }
    });
  }
});
