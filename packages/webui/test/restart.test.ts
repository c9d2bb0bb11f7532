import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { APPROVAL_TOOL, Client, postStream, readSse } from "./harness.js";

const packageDir = join(import.meta.dirname, "..");
const children: ChildProcess[] = [];

/** Starts test/child/server.ts in a real child node process (TypeScript run by Node itself). */
async function startServer(dir: string): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(
    process.execPath,
    [
      "--experimental-transform-types",
      "--no-warnings",
      "--import",
      "./test/child/register.mjs",
      "test/child/server.ts",
      dir,
    ],
    { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += String(d);
  });
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child server did not start: ${stderr}`)), 30_000);
    let out = "";
    child.stdout?.on("data", (d) => {
      out += String(d);
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line).base);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`child server exited with ${code}: ${stderr}`));
    });
  });
  return { child, base };
}

function kill9(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

const dir = mkdtempSync(join(tmpdir(), "webui-restart-"));
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("restart", () => {
  it("history, conversations, preferences and a suspended approval survive kill -9 of the server process", async () => {
    const first = await startServer(dir);
    const c1 = new Client(first.base);
    await c1.post("/invoke", { input: "remember the lighthouse", conversationId: "r1" });
    await c1.post("/conversations/rename", { conversationId: "r1", title: "Lighthouse" });
    await c1.post("/preferences/set", { key: "theme", value: { mode: "dark" } });
    const suspended = await c1.post("/invoke", {
      input: `use ${APPROVAL_TOOL} on old.log`,
      conversationId: "r2",
    });
    expect(suspended.body.status).toBe("suspended");
    const threadId: string = suspended.body.threadId;
    const historyBefore = (await c1.get("/history?conversationId=r1")).body.messages;
    const conversationsBefore = (await c1.get("/conversations")).body.conversations;
    await kill9(first.child);

    const second = await startServer(dir);
    const c2 = new Client(second.base);
    expect((await c2.get("/history?conversationId=r1")).body.messages).toEqual(historyBefore);
    expect((await c2.get("/conversations")).body.conversations).toEqual(conversationsBefore);
    expect((await c2.get("/preferences")).body.preferences).toEqual({ theme: { mode: "dark" } });
    const pending = (await c2.get(`/pending?threadId=${threadId}`)).body.pending;
    expect(pending).toMatchObject({ threadId, toolName: APPROVAL_TOOL });

    const resumed = await postStream(second.base, "/resume", { threadId, decision: "approve" });
    expect(resumed.status).toBe(200);
    const events = await readSse(resumed);
    expect(events.at(-1)).toMatchObject({ event: "done" });
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ status: "completed" });
    const history = (await c2.get("/history?conversationId=r2")).body.messages;
    expect(JSON.stringify(history)).toMatch(/deleted [^"]*old.log/);
    expect((await c2.get(`/pending?threadId=${threadId}`)).body.pending).toBeNull();
    await kill9(second.child);
  }, 40_000);
});
