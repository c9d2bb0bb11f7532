// `agentsvc start` of a project with no gateway (the built bin): the gateway session is made only
// when there is work for it (apps/server idle-session.ts, #45.1), and what it did for such a project
// still happens: messages and replies left by gateways since removed are reported as at any start,
// a reply requeued while the service runs is dead-lettered, and an agent-route approval no channel
// can ask for is rejected at once.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { eventually } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { linkPackages, repoRoot, tempDir, writeFiles } from "./helpers.js";

const bin = join(repoRoot, "packages/cli/bin/agentsvc.js");
let child: ChildProcess | undefined;

afterEach(() => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
});

const AGENT = `import { defineAgent, defineTool } from "@agentsvc/agent-core";
const sendNote = defineTool({
  name: "send_note",
  description: "Sends a note.",
  input: { type: "json-schema", schema: { type: "object" } },
  needsApproval: true,
  execute: () => ({ sent: true }),
});
export default defineAgent({ name: "bot", model: { provider: "demo" }, tools: [sendNote] });
`;

/** A project with an agent route only; its store at the server's default path. */
function project(): string {
  const dir = writeFiles(tempDir("agentsvc-gatewayless-"), {
    "package.json": JSON.stringify({ name: "gatewayless", private: true, type: "module" }),
    "agents/bot.mjs": AGENT,
    "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
  });
  linkPackages(dir, { "@agentsvc/agent-core": "packages/agent-core" });
  return dir;
}

const storeOf = (dir: string) => ChatDb.open({ appRoot: dir, path: "./data/agentsvc.db" });

/** What a removed telegram entry left: a message never answered and a reply never sent. */
async function leftovers(db: ChatDb): Promise<{ outbox: number }> {
  await db.inbox.accept({
    gateway: "telegram",
    dedupKey: "update-1",
    thread: "chat-1",
    text: "are you there",
    origin: { gateway: "telegram", thread: "chat-1" },
  });
  const [outbox] = await db.outbox.enqueue([
    { gateway: "telegram", thread: "chat-1", idemKey: "reply-1:0", kind: "text", payload: { text: "yes" } },
  ]);
  return { outbox: outbox as number };
}

function startBin(dir: string): { url: Promise<string>; output: () => string; proc: ChildProcess } {
  let output = "";
  const proc = spawn(process.execPath, [bin, "start", dir, "--port", "0", "--log-format", "json"], {
    env: { ...process.env, NO_COLOR: "1", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = proc;
  const url = new Promise<string>((resolve, reject) => {
    proc.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
      const match = /listening (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1] as string);
    });
    proc.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    proc.once("exit", (code) => reject(new Error(`exited ${code} before listening:\n${output}`)));
  });
  return { url, output: () => output, proc };
}

async function stopped(proc: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.kill("SIGTERM");
  await exited;
}

async function statusOf(dir: string, id: number): Promise<string | undefined> {
  const db = storeOf(dir);
  try {
    return (await db.outbox.list("telegram", "chat-1")).find((row) => row.id === id)?.status;
  } finally {
    await db.close();
  }
}

describe("agentsvc start of a project with no gateway", () => {
  it("reports what removed gateways left in the store: the message is left as is (logged), the reply dead-lettered", async () => {
    const dir = project();
    const db = storeOf(dir);
    const { outbox } = await leftovers(db);
    await db.close();
    const { url, output, proc } = startBin(dir);
    await url;
    await eventually(
      () => output().includes("unfinished message of an unregistered gateway left as is"),
      "the unfinished message logged",
      15_000,
    );
    await eventually(async () => (await statusOf(dir, outbox)) === "dead", "the reply dead-lettered", 15_000);
    await eventually(
      () => output().includes("outbox piece dead-lettered: its gateway is not registered"),
      "the dead letter logged",
    );
    await stopped(proc);
  }, 60_000);

  it("dead-letters a reply of a removed gateway requeued while it runs (found by the sender's look)", async () => {
    const dir = project();
    const { url, output, proc } = startBin(dir);
    await url;
    const db = storeOf(dir);
    const [id] = await db.outbox.enqueue([
      { gateway: "telegram", thread: "chat-1", idemKey: "late-1:0", kind: "text", payload: { text: "late" } },
    ]);
    await db.close();
    await eventually(
      async () => (await statusOf(dir, id as number)) === "dead",
      "the reply dead-lettered",
      20_000,
    );
    await eventually(
      () => output().includes("outbox piece dead-lettered: its gateway is not registered"),
      "the dead letter logged",
    );
    await stopped(proc);
  }, 60_000);

  it("rejects an agent-route approval at once and once (no channel can ask), and the conversation goes on", async () => {
    const dir = project();
    const { url, proc, output } = startBin(dir);
    const base = await url;
    const post = (input: string) =>
      fetch(`${base}/agent/invoke`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input, conversationId: "c-1" }),
      });
    expect((await post("please use send_note to say hi")).status).toBe(200);
    let next: Response | undefined;
    await eventually(async () => {
      next = await post("still there?");
      return next.status !== 409;
    }, "the next turn taken");
    expect(next?.status).toBe(200);
    expect(JSON.stringify(await next?.json())).toContain("still there?");
    await stopped(proc);
    // Rejected once: the session made for it does not reject it a second time.
    expect(output().match(/approval request rejected at once/g)).toHaveLength(1);
    expect(output()).not.toContain("could not reject the unrenderable approval request");
  }, 60_000);
});
