// How a turn's inbox record ends: done when the turn completed (with the records of messages steered
// into it), failed (with the failure reply) when its run failed, rejected for a busy reply. A start refused for another reason than a
// settling thread is not retried, and a failed turn whose end cannot be recorded is logged while
// its thread still takes the next message.
import { describe, expect, it } from "vitest";
import { type Rig, until, useRig } from "./session-harness.js";
import { acceptedId, behindRunning, refuseStarts, toolLoop, whileRunning } from "./turn-harness.js";

const T = "t-ends";
const openRig = useRig();
const NOTHING_SENT = "turn produced no text; nothing sent";

const statusOf = async (r: Rig, id: number) => (await r.db.inbox.get(id))?.status;

describe("a turn's record", () => {
  it("ends done when the turn completed with a reply, and nothing is logged as not sent", async () => {
    const r = await openRig();
    const id = await acceptedId(r, T, "hello");
    await r.session.idle();
    expect(await statusOf(r, id)).toBe("done");
    expect(r.gateway.textsTo(T)).toEqual([expect.stringContaining('You said: "hello"')]);
    expect(r.logs.lines().filter((l) => l.msg === NOTHING_SENT)).toEqual([]);
  });

  it("ends done together with the records of the messages steered into the turn", async () => {
    const r = await openRig({ gatewaySession: { policy: "steer" } });
    const [id, steered] = await behindRunning(r, T, "and also this", "steered");
    expect([await statusOf(r, id), await statusOf(r, steered)]).toEqual(["done", "done"]);
    expect(r.gateway.textsTo(T)).toHaveLength(1);
  });

  it("ends failed, with the failure reply, when the run failed", async () => {
    // Every model call asks for a tool: the run fails when it reaches maxSteps.
    const r = await openRig({ script: toolLoop() });
    r.gates.openAll();
    const id = await acceptedId(r, T, "loop");
    await r.session.idle();
    expect(await statusOf(r, id)).toBe("failed");
    expect(r.gateway.textsTo(T)).toEqual(["Sorry, I could not answer this message (max_steps)."]);
  });

  it("of each message answered with the busy reply ends rejected, and each gets its own busy reply", async () => {
    const r = await openRig({ gatewaySession: { policy: "reject", busyReply: "Busy." } });
    const [first, refused] = await whileRunning(r, T, "and this");
    const again = await acceptedId(r, T, "and this too");
    await until(() => r.gateway.textsTo(T).filter((t) => t === "Busy.").length === 2, "two busy replies");
    r.gates.openAll();
    await r.session.idle();
    const statuses = [await statusOf(r, first), await statusOf(r, refused), await statusOf(r, again)];
    expect(statuses).toEqual(["done", "rejected", "rejected"]);
  });
});

describe("a start refused for another reason than a settling thread", () => {
  it("is not retried: one attempt, then the failure reply", async () => {
    const r = await openRig();
    const refused = refuseStarts(r);
    const id = await acceptedId(r, T, "hello");
    await until(() => r.gateway.textsTo(T).length === 1, "the failure reply");
    await r.session.idle();
    expect(refused.attempts()).toBe(1);
    expect(await statusOf(r, id)).toBe("failed");
  });
});

describe("a failed turn whose end cannot be recorded", () => {
  it("is logged with its thread, and the thread takes its next message", async () => {
    const r = await openRig();
    const start = r.runs.start.bind(r.runs);
    const enqueue = r.db.outbox.enqueue.bind(r.db.outbox);
    refuseStarts(r);
    r.db.outbox.enqueue = () => Promise.reject(new Error("the reply row was refused"));
    await acceptedId(r, T, "first");
    const logged = () => r.logs.lines().filter((l) => l.msg === "could not record the end of a failed turn");
    await until(() => logged().length === 1, "the failure to record logged");
    expect(logged()).toEqual([expect.objectContaining({ threadId: `gw:mock:${T}` })]);

    r.runs.start = start;
    r.db.outbox.enqueue = enqueue;
    await acceptedId(r, T, "second");
    await until(() => r.gateway.textsTo(T).length === 1, "the next message's reply");
    expect(r.gateway.textsTo(T)).toEqual([expect.stringContaining('You said: "second"')]);
  });
});
