// What a turn logs for an operator following a message: the start of its turn (debug, with the
// thread and the inbox record to grep for) and a turn that could not start (error, with its thread).
import { describe, expect, it } from "vitest";
import { until, useRig } from "./session-harness.js";
import { acceptedId, refuseStarts } from "./turn-harness.js";

const openRig = useRig();

describe("a turn's log lines", () => {
  it("say when its turn starts, naming its thread and inbox record", async () => {
    const r = await openRig();
    const id = await acceptedId(r, "t1", "hello");
    await until(() => r.gateway.textsTo("t1").length === 1, "the reply");
    const starts = r.logs.lines().filter((l) => l.msg === "turn starts");
    expect(starts).toEqual([expect.objectContaining({ threadId: "gw:mock:t1", inboxId: id })]);
  });

  it("of a turn that could not start say so as an error, with its thread and the error", async () => {
    const r = await openRig();
    refuseStarts(r);
    await r.gateway.inject({ thread: "t1", text: "hello" });
    await until(() => r.gateway.textsTo("t1").length === 1, "the failure reply");
    const errors = r.logs.lines().filter((l) => l.level === 50);
    expect(errors).toEqual([
      expect.objectContaining({
        msg: "could not start a turn",
        threadId: "gw:mock:t1",
        err: expect.objectContaining({ message: "the run store refused the run" }),
      }),
    ]);
  });
});
