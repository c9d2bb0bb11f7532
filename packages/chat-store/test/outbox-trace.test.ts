// A reply piece keeps the trace context of the turn that wrote it, so a send after a restart (a new
// process reading the row) continues the same trace. Both dialects.
import { describe, expect, it } from "vitest";
import { eachDriver, tempRoot } from "./helpers.js";

// The W3C Trace Context example value (https://www.w3.org/TR/trace-context/#examples-of-http-traceparent-headers).
const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

eachDriver((driver) => {
  describe("outbox trace context", () => {
    it("a piece's traceparent is read back by a reopened store; a piece written without one has none", async () => {
      const appRoot = tempRoot();
      const db = await driver.open({ appRoot });
      await db.outbox.enqueue([
        {
          gateway: "telegram",
          thread: "t1",
          idemKey: "traced",
          kind: "text",
          payload: { text: "a" },
          traceparent: TRACEPARENT,
        },
        { gateway: "telegram", thread: "t2", idemKey: "untraced", kind: "text", payload: { text: "b" } },
      ]);
      db.close();
      const again = await driver.open({ appRoot });
      const due = await again.outbox.due(Date.now() + 1000);
      expect(due.map((r) => [r.idemKey, r.traceparent])).toEqual([
        ["traced", TRACEPARENT],
        ["untraced", null],
      ]);
    });
  });
});
