// What a process that died leaves in its store, for the recovery tests to boot over: a message it
// recorded and never ran, a gateway turn or a run elsewhere whose approved tool was running.
import { RunManager } from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import { expect } from "vitest";
import { Gates, type Rig, type RigOptions, testAgent, until } from "./session-harness.js";

/** A process that dies: its turns never commit. */
export const crash = (r: Rig) => r.close(50);

/** Messages recorded (in this order) by a process that died before it ran them. */
export async function recordedNotRun(dir: string, thread: string, texts: string[], gateway = "mock") {
  const before = ChatDb.open({ appRoot: dir, path: "data/chat.db" });
  for (const [i, text] of texts.entries()) {
    const origin = { gateway, thread, author: { id: "user-1" } };
    await before.inbox.accept({ gateway, dedupKey: `${thread}-${i}`, thread, text, origin });
  }
  before.close();
}

/** A first process whose approved tool was running on the gateway thread when it died. */
export async function diedWhileApprovedToolRan(
  openRig: (options: RigOptions) => Promise<Rig>,
  dir: string,
  thread: string,
  options: RigOptions = {},
): Promise<void> {
  const a = await openRig({ dir, ...options });
  await a.gateway.inject({ thread, text: "use slow_delete x.txt" });
  await until(() => a.gateway.decisionRequests.length === 1, "the approval request");
  const requestId = a.gateway.decisionRequests[0]?.requestId ?? "";
  expect(await a.gateway.decide(requestId, "approve")).toMatchObject({ ok: true });
  await until(() => a.gates.calls.length === 1, "the approved tool running");
  await crash(a);
}

/**
 * A first process whose run outside any gateway (the agent route) was approved and died while the
 * tool ran; resolves with the run's thread id.
 */
export async function diedWhileApprovedRunElsewhereRan(dir: string): Promise<string> {
  const db = ChatDb.open({ appRoot: dir, path: "data/chat.db" });
  const stuck = new Gates();
  const runs = new RunManager({
    agent: testAgent(stuck, []),
    memory: db.createMemory({ canSummarize: false }),
    runStore: db.runStore,
    logger: { info() {}, warn() {}, error() {} },
  });
  const threadId = "api:alice:c1";
  const first = runs.start({
    input: "use slow_delete y.txt",
    threadId,
    userId: "alice",
    conversationId: "c1",
  });
  expect((await first.done).status).toBe("suspended");
  await runs.resume(threadId, { decision: "approve" }, { userId: "alice" });
  await until(() => stuck.calls.length === 1, "the approved tool running");
  db.close();
  return threadId;
}
