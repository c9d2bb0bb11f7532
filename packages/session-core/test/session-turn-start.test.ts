// How a turn starts and what it sends when it has nothing to say: a thread whose previous run is
// still settling (thread_busy) is retried a bounded number of times, and an empty reply sends
// nothing (and says so in the log). A started turn shows as running, with nothing steered into it.
import { AgentsvcError } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import { type Rig, until, useRig } from "./session-harness.js";

const openRig = useRig();

/** The run manager answers thread_busy to the first `busy` starts (every start when Infinity). */
function busyFirst(r: Rig, busy: number): { attempts: () => number } {
  const start = r.runs.start.bind(r.runs);
  let attempts = 0;
  r.runs.start = (input) => {
    attempts++;
    if (attempts <= busy) throw new AgentsvcError("thread_busy", "the previous run is settling", 409);
    return start(input);
  };
  return { attempts: () => attempts };
}

describe("a turn whose thread is still settling its previous run", () => {
  it("starts once the run manager takes it, and runs once", async () => {
    const r = await openRig();
    const busy = busyFirst(r, 3);
    await r.gateway.inject({ thread: "t1", text: "hello there" });
    await until(() => r.gateway.textsTo("t1").length === 1, "the reply");
    await r.session.idle();
    expect(busy.attempts()).toBe(4);
    expect(r.runs.starts.map((s) => s.input)).toEqual(["hello there"]);
    expect(r.gateway.textsTo("t1")[0]).toContain("hello there");
  });

  it("gives up after 21 attempts and answers with the failure reply", async () => {
    const r = await openRig();
    const busy = busyFirst(r, Number.POSITIVE_INFINITY);
    await r.gateway.inject({ thread: "t1", text: "hello there" });
    await until(() => r.gateway.textsTo("t1").length === 1, "the failure reply");
    await r.session.idle();
    expect(busy.attempts()).toBe(21);
    expect(r.gateway.textsTo("t1")).toEqual(["Sorry, I could not answer this message (thread_busy)."]);
    expect(await r.db.inbox.unfinished()).toEqual([]);
  });
});

describe("a turn that produced no text", () => {
  it("sends nothing, ends its message, and logs that nothing was sent", async () => {
    const r = await openRig({ script: [{ text: "" }] });
    await r.gateway.inject({ thread: "t1", text: "say nothing" });
    await until(
      () => r.logs.lines().some((l) => l.msg === "turn produced no text; nothing sent"),
      "the log line",
    );
    await r.session.idle();
    expect(r.gateway.sent).toEqual([]);
    expect(await r.db.outbox.list("mock", "t1")).toEqual([]);
    expect(await r.db.inbox.unfinished()).toEqual([]);
    const logged = r.logs.lines().filter((l) => l.msg === "turn produced no text; nothing sent");
    expect(logged).toEqual([expect.objectContaining({ thread: "t1" })]);
  });
});

describe("a turn that has started", () => {
  it("shows in its thread's snapshot as running, with nothing steered or queued", async () => {
    const r = await openRig();
    await r.gateway.inject({ thread: "t1", text: "use wait_gate first" });
    await until(() => r.gates.calls.length === 1, "the turn at its gate");
    expect(r.session.snapshot("mock", "t1")).toEqual({
      running: true,
      phase: "running",
      queued: 0,
      steered: 0,
    });
    r.gates.openAll();
    await r.session.idle();
  });
});
