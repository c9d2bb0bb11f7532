// The gateway's IMAP connection across polls, counted by a TCP relay in front of the test Dovecot: a
// failed poll drops it (it may be stuck mid-command) and the next poll opens a new one; a poll that
// ended no longer listens to its task's signal, so a late abort leaves the held connection alone.
import { dovecotMissing } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import { until } from "./rig.js";
import { fromAnn, useSteppedGateway } from "./stepped-gateway.js";
import { relay } from "./tcp-relay.js";

const { dovecot, started } = useSteppedGateway();

describe.skipIf(dovecotMissing !== undefined)("the gateway's IMAP connection", () => {
  it("a failed poll drops its connection and the next poll opens a new one", async () => {
    const counted = await relay((await dovecot.started()).port);
    try {
      const { box, ctx, delivered, round } = await started({ imapPort: counted.port });
      await box.append(fromAnn("c1", "x", "kept"));
      const deliver = ctx.deliver;
      ctx.deliver = async () => {
        ctx.deliver = deliver;
        throw new Error("the session's store is down");
      };
      expect(await round()).toBeGreaterThanOrEqual(100);
      await until(() => counted.open() === 0, "the failed poll's connection closed");
      expect(await round()).toBe(100);
      expect(counted.accepted()).toBe(2);
      expect(delivered.map((d) => d.text)).toEqual(["kept"]);
    } finally {
      await counted.close();
    }
  });

  it("aborting a poll task's signal after the poll ended leaves the held connection open", async () => {
    const counted = await relay((await dovecot.started()).port);
    try {
      const { tasks, round } = await started({ imapPort: counted.port });
      const ended = new AbortController();
      expect(await tasks.get("poll")?.(ended.signal)).toBe(100);
      ended.abort();
      expect(await round()).toBe(100);
      expect(counted.accepted()).toBe(1);
      expect(counted.open()).toBe(1);
    } finally {
      await counted.close();
    }
  });
});
