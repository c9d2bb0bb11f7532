// A gateway turn that cannot start still answers: its "Sorry, I could not answer" reply is queued
// with the failed record AND sent, without waiting for something else to wake the outbox (#22 item 2).
import { AgentsvcError } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import { until, useRig } from "./session-harness.js";

const openRig = useRig();

describe("a turn that fails to start", () => {
  it("sends its failure reply at once", async () => {
    const r = await openRig();
    // The run cannot start at all (as when the store refuses it): not a busy thread, so no retry.
    r.runs.start = () => {
      throw new AgentsvcError("run_store_unavailable", "the run store refused the run", 503);
    };
    await r.gateway.inject({ thread: "t1", text: "hello" });
    // No idle(): it wakes the sender itself and would hide the defect.
    await until(() => r.gateway.textsTo("t1").length === 1, "the failure reply sent", 3_000);
    expect(r.gateway.textsTo("t1")[0]).toBe(
      "Sorry, I could not answer this message (run_store_unavailable).",
    );
    const rows = await r.db.outbox.list("mock", "t1");
    expect(rows.map((row) => [row.status, row.attempts])).toEqual([["sent", 1]]);
  });
});
