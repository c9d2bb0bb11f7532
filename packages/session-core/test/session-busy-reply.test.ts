// The busy reply is sent at once, not when the turn it was refused for ends or the outbox looks again.
import { describe, expect, it } from "vitest";
import { DEFAULT_BUSY_REPLY } from "../src/session.js";
import { until, useRig } from "./session-harness.js";
import { whileRunning } from "./turn-harness.js";

const openRig = useRig();

describe("the busy reply", () => {
  it("goes out while the turn it was refused for still runs", async () => {
    // The outbox looks for due pieces by itself only every 10 minutes: only a wake sends the reply.
    const r = await openRig({ gatewaySession: { policy: "reject" }, outbox: { idlePollMs: 600_000 } });
    await whileRunning(r, "T", "are you there?");
    await until(() => r.gateway.textsTo("T").length === 1, "the busy reply", 5_000);
    expect(r.gateway.textsTo("T")).toEqual([DEFAULT_BUSY_REPLY]);
    expect(r.session.snapshot("mock", "T")).toMatchObject({ running: true, phase: "running" });
    r.gates.openAll();
    await r.session.idle();
    expect(r.gateway.textsTo("T")).toEqual([DEFAULT_BUSY_REPLY, "The tool wait_gate returned: opened."]);
  });
});
