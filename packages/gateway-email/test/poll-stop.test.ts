// Stopping while a poll runs: the stop (or the scheduler's abort of the task) closes the IMAP
// connection under it, and the poll ends without an error logged or a retry asked for.
import { dovecotMissing } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import { fromAnn, useSteppedGateway } from "./stepped-gateway.js";

const { started } = useSteppedGateway();

const failures = (lines: { msg: string }[]) => lines.filter((l) => l.msg.startsWith("IMAP poll failed"));

describe.skipIf(dovecotMissing !== undefined)("stopping during a poll", () => {
  it("a poll in flight when the gateway stops ends the task and logs no failure", async () => {
    const { box, gw, ctx, lines, delivered, round } = await started();
    await box.append(fromAnn("s1", "x", "first"));
    // The stop comes while the mail is being recorded; marking it \Seen then fails on the closed connection.
    const deliver = ctx.deliver;
    ctx.deliver = async (inbound) => {
      await gw.stop();
      return deliver(inbound);
    };
    expect(await round()).toBeNull();
    expect(delivered.map((d) => d.text)).toEqual(["first"]);
    expect(failures(lines)).toEqual([]);
  });

  it("an aborted poll task closes the connection under the poll: the mail stays unread and the poll is retried", async () => {
    const { box, ctx, lines, tasks } = await started();
    const uid = await box.append(fromAnn("a1", "x", "aborted"));
    const abort = new AbortController();
    const deliver = ctx.deliver;
    ctx.deliver = async (inbound) => {
      abort.abort();
      return deliver(inbound);
    };
    const poll = tasks.get("poll");
    expect(await poll?.(abort.signal)).toBeGreaterThanOrEqual(100);
    expect(failures(lines)).toHaveLength(1);
    expect(await box.seen(uid)).toBe(false);
  });
});
