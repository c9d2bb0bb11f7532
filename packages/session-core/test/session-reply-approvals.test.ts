// A streamed reply that stops for approvals more than once: each part is sent once.
import { describe, expect, it } from "vitest";
import { until, useRig } from "./session-harness.js";
import { streamed } from "./turn-harness.js";

const openRig = useRig();

describe("a streamed reply that stops for two approvals", () => {
  it("sends each part once: the parts before each request, then only what followed the last", async () => {
    const r = await openRig(
      streamed({
        script: [
          { text: "first part", toolCalls: [{ name: "delete_file", arguments: { note: "n1" } }] },
          { text: "second part", toolCalls: [{ name: "delete_file", arguments: { note: "n2" } }] },
          { text: "all done" },
        ],
      }),
    );
    await r.gateway.inject({ thread: "T", text: "delete both" });
    for (const n of [1, 2]) {
      await until(() => r.gateway.decisionRequests.length === n, `request ${n}`);
      const req = r.gateway.decisionRequests[n - 1]!;
      expect(await r.gateway.decide(req.requestId, "approve")).toMatchObject({ ok: true });
    }
    await r.session.idle();
    expect(r.executed).toEqual(["n1", "n2"]);
    expect(r.gateway.textsTo("T")).toEqual(["first part", "second part", "all done"]);
  });
});
