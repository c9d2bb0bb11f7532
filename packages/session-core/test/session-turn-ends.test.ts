// How a turn's inbox record ends: done when the turn completed (with the records of messages steered
// into it), failed (with the failure reply) when its run failed, rejected for a busy reply. A start refused for another reason than a
// settling thread is not retried, and a failed turn whose end cannot be recorded is logged while
// its thread still takes the next message.
import { AgentsvcError, DEFAULT_MAX_STEPS } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import { type Rig, until, useRig } from "./session-harness.js";

const T = "t-ends";
const openRig = useRig();
const NOTHING_SENT = "turn produced no text; nothing sent";

async function accepted(r: Rig, text: string): Promise<number> {
  const result = await r.gateway.inject({ thread: T, text });
  if (!result.accepted) throw new Error(`"${text}" was not accepted`);
  return result.id;
}

const statusOf = async (r: Rig, id: number) => (await r.db.inbox.get(id))?.status;

describe("a turn's record", () => {
  it("ends done when the turn completed with a reply, and nothing is logged as not sent", async () => {
    const r = await openRig();
    const id = await accepted(r, "hello");
    await r.session.idle();
    expect(await statusOf(r, id)).toBe("done");
    expect(r.gateway.textsTo(T)).toEqual([expect.stringContaining('You said: "hello"')]);
    expect(r.logs.lines().filter((l) => l.msg === NOTHING_SENT)).toEqual([]);
  });

  it("ends done together with the records of the messages steered into the turn", async () => {
    const r = await openRig({ gatewaySession: { policy: "steer" } });
    const id = await accepted(r, "use wait_gate first");
    await until(() => r.gates.calls.length === 1, "the turn at its gate");
    const steered = await accepted(r, "and also this");
    await until(() => r.session.snapshot("mock", T).steered === 1, "the message steered into the turn");
    r.gates.openAll();
    await r.session.idle();
    expect([await statusOf(r, id), await statusOf(r, steered)]).toEqual(["done", "done"]);
    expect(r.gateway.textsTo(T)).toHaveLength(1);
  });

  it("ends failed, with the failure reply, when the run failed", async () => {
    // Every model call asks for a tool: the run fails when it reaches maxSteps.
    const script = Array.from({ length: DEFAULT_MAX_STEPS + 1 }, (_, i) => ({
      toolCalls: [{ name: "wait_gate", arguments: { note: `step ${i}` } }],
    }));
    const r = await openRig({ script });
    r.gates.openAll();
    const id = await accepted(r, "loop");
    await r.session.idle();
    expect(await statusOf(r, id)).toBe("failed");
    expect(r.gateway.textsTo(T)).toEqual(["Sorry, I could not answer this message (max_steps)."]);
  });

  it("of a message answered with the busy reply ends rejected", async () => {
    const r = await openRig({ gatewaySession: { policy: "reject", busyReply: "Busy." } });
    const first = await accepted(r, "use wait_gate first");
    await until(() => r.gates.calls.length === 1, "the first turn at its gate");
    const refused = await accepted(r, "and this");
    await until(() => r.gateway.textsTo(T).includes("Busy."), "the busy reply");
    r.gates.openAll();
    await r.session.idle();
    expect([await statusOf(r, first), await statusOf(r, refused)]).toEqual(["done", "rejected"]);
  });
});

describe("a start refused for another reason than a settling thread", () => {
  it("is not retried: one attempt, then the failure reply", async () => {
    const r = await openRig();
    let attempts = 0;
    r.runs.start = () => {
      attempts++;
      throw new AgentsvcError("run_store_unavailable", "the run store refused the run", 503);
    };
    const id = await accepted(r, "hello");
    await until(() => r.gateway.textsTo(T).length === 1, "the failure reply");
    await r.session.idle();
    expect(attempts).toBe(1);
    expect(await statusOf(r, id)).toBe("failed");
  });
});

describe("a failed turn whose end cannot be recorded", () => {
  it("is logged with its thread, and the thread takes its next message", async () => {
    const r = await openRig();
    const start = r.runs.start.bind(r.runs);
    const enqueue = r.db.outbox.enqueue.bind(r.db.outbox);
    r.runs.start = () => {
      throw new AgentsvcError("run_store_unavailable", "the run store refused the run", 503);
    };
    r.db.outbox.enqueue = () => Promise.reject(new Error("the reply row was refused"));
    await accepted(r, "first");
    const logged = () => r.logs.lines().filter((l) => l.msg === "could not record the end of a failed turn");
    await until(() => logged().length === 1, "the failure to record logged");
    expect(logged()).toEqual([expect.objectContaining({ threadId: `gw:mock:${T}` })]);

    r.runs.start = start;
    r.db.outbox.enqueue = enqueue;
    await accepted(r, "second");
    await until(() => r.gateway.textsTo(T).length === 1, "the next message's reply");
    expect(r.gateway.textsTo(T)).toEqual([expect.stringContaining('You said: "second"')]);
  });
});
