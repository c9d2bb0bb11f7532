// Spec §3's message table, row by row, for every policy, on real demo-model runs.
import { describe, expect, it } from "vitest";
import { DEFAULT_BUSY_REPLY, type SessionPolicy } from "../src/index.js";
import { type Rig, until, useRig } from "./session-harness.js";

const T = "chat-42";
const BUSY = "Busy, please wait.";
const FIRST_REPLY = "The tool wait_gate returned: opened.";
const quoted = (text: string) => `You said: "${text}"`;

const openRig = useRig();

async function start(policy: SessionPolicy, maxQueueDepth = 50): Promise<Rig> {
  return openRig({ gatewaySession: { policy, maxQueueDepth, busyReply: BUSY } });
}

/** Starts a turn on T that stays running until the test opens its gate. */
async function busyThread(r: Rig): Promise<void> {
  await r.gateway.inject({ thread: T, text: "use wait_gate first" });
  await until(() => r.gates.calls.length === 1, "the first turn reaching its gate");
  expect(r.session.snapshot(r.gateway.name, T)).toMatchObject({ running: true, phase: "running" });
}

async function inboxStatuses(r: Rig): Promise<string[]> {
  const rows = await r.db.inbox.unfinished();
  return rows.map((row) => row.status);
}

describe("thread idle, message arrives (every policy)", () => {
  for (const policy of ["reject", "queue", "steer", "interrupt"] as const) {
    it(`${policy}: dispatches a new turn and replies through the gateway it came from`, async () => {
      const r = await start(policy);
      const other = await import("../src/testing/index.js").then((m) =>
        m.createMockGateway({ name: "other" }),
      );
      r.registry.register(other);
      await other.start(r.gateway.context);
      await r.gateway.inject({ thread: T, text: "hello there" });
      await r.session.idle();
      expect(r.runs.starts).toHaveLength(1);
      expect(r.runs.starts[0]).toMatchObject({
        userId: "mock",
        conversationId: T,
        origin: { gateway: "mock", thread: T },
      });
      expect(r.gateway.textsTo(T)).toHaveLength(1);
      expect(r.gateway.textsTo(T)[0]).toContain(quoted("hello there"));
      expect(other.sent).toHaveLength(0);
      expect(await inboxStatuses(r)).toEqual([]);
    });
  }
});

interface Row {
  policy: SessionPolicy;
  behaviour: string;
  /** What the second message (arriving while T runs) does. */
  expectBusyReply: boolean;
  queuedWhileRunning: number;
  turns: number;
  /** Texts T receives, in order, after the gate opens and everything settles. */
  replies: (string | RegExp)[];
}

const rows: Row[] = [
  {
    policy: "reject",
    behaviour: "answers at once with the busy reply and queues nothing",
    expectBusyReply: true,
    queuedWhileRunning: 0,
    turns: 1,
    replies: [BUSY, FIRST_REPLY],
  },
  {
    policy: "queue",
    behaviour: "queues the message and runs it as its own turn after the current one",
    expectBusyReply: false,
    queuedWhileRunning: 1,
    turns: 2,
    replies: [FIRST_REPLY, new RegExp(`^${escapeRe(quoted("second"))}`)],
  },
  // Spliced into the running turn at its next checkpoint: the same turn answers it.
  {
    policy: "steer",
    behaviour: "splices the text into the running turn with no second turn",
    expectBusyReply: false,
    queuedWhileRunning: 0,
    turns: 1,
    replies: [new RegExp(escapeRe(quoted("second")))],
  },
  // The first run is cancelled at its next checkpoint (no reply), then the message runs.
  {
    policy: "interrupt",
    behaviour: "cancels the current run at its next checkpoint, then runs the message",
    expectBusyReply: false,
    queuedWhileRunning: 1,
    turns: 2,
    replies: [new RegExp(`^${escapeRe(quoted("second"))}`)],
  },
];

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("thread running, message arrives (spec §3 rows)", () => {
  for (const row of rows) {
    it(`${row.policy}: ${row.behaviour}`, async () => {
      const r = await start(row.policy);
      await busyThread(r);
      await r.gateway.inject({ thread: T, text: "second" });
      await until(
        () =>
          r.session.snapshot(r.gateway.name, T).queued === row.queuedWhileRunning &&
          (!row.expectBusyReply || r.gateway.sent.length > 0),
        "the policy taking effect",
      );
      expect(r.session.snapshot(r.gateway.name, T).queued).toBe(row.queuedWhileRunning);
      expect(r.gateway.textsTo(T)).toEqual(row.expectBusyReply ? [BUSY] : []);
      expect(r.runs.starts).toHaveLength(1);
      r.gates.openAll();
      await r.session.idle();
      expect(r.runs.starts).toHaveLength(row.turns);
      const texts = r.gateway.textsTo(T);
      expect(texts).toHaveLength(row.replies.length);
      row.replies.forEach((want, i) => {
        if (typeof want === "string") expect(texts[i]).toBe(want);
        else expect(texts[i]).toMatch(want);
      });
      expect(await inboxStatuses(r)).toEqual([]);
      if (row.policy === "steer") {
        // No second turn: both user messages live in one turn of memory.
        const memory = await r.db
          .createMemory({ canSummarize: false })
          .load({ userId: "mock", conversationId: T });
        expect(memory.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
          "use wait_gate first",
          "second",
        ]);
      }
      if (row.policy === "interrupt") {
        const memory = await r.db
          .createMemory({ canSummarize: false })
          .load({ userId: "mock", conversationId: T });
        expect(memory.some((m) => m.role === "tool" && m.toolName === "wait_gate")).toBe(true);
        expect(texts.join("\n")).not.toContain(FIRST_REPLY);
      }
    });
  }
});

describe("thread running, queue at maxQueueDepth (spec §3 last row)", () => {
  for (const policy of ["queue", "interrupt"] as const) {
    it(`${policy}: a message beyond maxQueueDepth gets the busy reply and is never run`, async () => {
      const r = await start(policy, 1);
      await busyThread(r);
      await r.gateway.inject({ thread: T, text: "second" });
      await until(() => r.session.snapshot(r.gateway.name, T).queued === 1, "second queued");
      await r.gateway.inject({ thread: T, text: "third" });
      await until(() => r.gateway.sent.length === 1, "busy reply");
      expect(r.gateway.textsTo(T)).toEqual([BUSY]);
      expect(r.session.snapshot(r.gateway.name, T).queued).toBe(1);
      r.gates.openAll();
      await r.session.idle();
      expect(r.runs.starts.map((s) => s.input)).toEqual(["use wait_gate first", "second"]);
      expect(r.gateway.textsTo(T).join("\n")).not.toContain(quoted("third"));
    });
  }

  it("queue: messages run FIFO, each as its own turn", async () => {
    const r = await start("queue", 5);
    await busyThread(r);
    for (const text of ["m1", "m2", "m3"]) await r.gateway.inject({ thread: T, text });
    await until(() => r.session.snapshot(r.gateway.name, T).queued === 3, "three queued");
    r.gates.openAll();
    await r.session.idle();
    expect(r.runs.starts.map((s) => s.input)).toEqual(["use wait_gate first", "m1", "m2", "m3"]);
    const texts = r.gateway.textsTo(T);
    expect(texts.slice(1).map((t) => t.slice(0, quoted("m1").length))).toEqual([
      quoted("m1"),
      quoted("m2"),
      quoted("m3"),
    ]);
  });
});

describe("session basics", () => {
  it("uses the default busy reply when none is configured", async () => {
    const r = await openRig({ gatewaySession: { policy: "reject" } });
    await busyThread(r);
    await r.gateway.inject({ thread: T, text: "again" });
    await until(() => r.gateway.sent.length === 1);
    expect(r.gateway.textsTo(T)).toEqual([DEFAULT_BUSY_REPLY]);
  });

  it("runs a repeated platform message id only once", async () => {
    const r = await start("queue");
    const first = await r.gateway.inject({ thread: T, text: "hi", id: "msg-1" });
    const again = await r.gateway.inject({ thread: T, text: "hi", id: "msg-1" });
    expect(first).toMatchObject({ accepted: true });
    expect(again).toEqual({ accepted: false, duplicate: true });
    await r.session.idle();
    expect(r.runs.starts).toHaveLength(1);
    expect(r.gateway.textsTo(T)).toHaveLength(1);
  });

  it("keeps threads apart: a busy thread does not hold up another", async () => {
    const r = await start("reject");
    await busyThread(r);
    await r.gateway.inject({ thread: "other-thread", text: "independent" });
    await until(() => r.gateway.textsTo("other-thread").length === 1);
    expect(r.gateway.textsTo("other-thread")[0]).toContain(quoted("independent"));
    expect(r.gateway.textsTo(T)).toEqual([]);
  });

  it("scopes memory by gateway and platform thread", async () => {
    const r = await start("queue");
    await r.gateway.inject({ thread: "a", text: "for a" });
    await r.gateway.inject({ thread: "b", text: "for b" });
    await r.session.idle();
    const memory = r.db.createMemory({ canSummarize: false });
    const a = await memory.load({ userId: "mock", conversationId: "a" });
    const b = await memory.load({ userId: "mock", conversationId: "b" });
    expect(a.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["for a"]);
    expect(b.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["for b"]);
  });

  it("sends a long reply in platform-sized pieces", async () => {
    const r = await openRig({ gateway: { messageLimit: 40 } });
    const words =
      "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma";
    await r.gateway.inject({ thread: T, text: words });
    await r.session.idle();
    const pieces = r.gateway.textsTo(T);
    expect(pieces.length).toBeGreaterThan(2);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(40);
    expect(pieces.join(" ")).toContain(words);
  });
});
