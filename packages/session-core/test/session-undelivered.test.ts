// A reply the platform accepted and later reports undelivered (WhatsApp's `failed` status) is not
// counted as delivered: the adapter tells the session, which marks that outbox piece dead with the reason.
import { describe, expect, it } from "vitest";
import { until, useRig } from "./session-harness.js";

const openRig = useRig();

describe("undelivered replies", () => {
  it("a sent piece reported undelivered becomes dead with the reason; an unknown id changes nothing", async () => {
    const r = await openRig();
    await r.gateway.inject({ thread: "t1", text: "hello" });
    await until(() => r.gateway.sent.length > 0, "the reply");
    await r.session.idle();
    const [row] = await r.db.outbox.list("mock", "t1");
    expect(row).toMatchObject({ status: "sent", platformId: "mock-msg-1" });
    const report = r.gateway.context.undelivered;
    expect(report).toBeDefined();
    expect(await report?.("t1", "mock-msg-404", "never sent")).toBe(false);
    expect(await report?.("t1", "mock-msg-1", "131047 outside the 24-hour window")).toBe(true);
    expect(await r.db.outbox.get(row?.id as number)).toMatchObject({
      status: "dead",
      lastError: "131047 outside the 24-hour window",
    });
    expect(await r.db.outbox.countByStatus("sent")).toBe(0);
    // The dead letter is logged once at error, with what an operator needs to find and retry it.
    const errors = r.logs.lines().filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      gateway: "mock",
      thread: "t1",
      err: "131047 outside the 24-hour window",
    });
    expect(String(errors[0]?.msg)).toMatch(/dead-lettered/);
  });

  it("a piece reported undelivered for a passing reason (a rate limit) is sent again after the wait", async () => {
    const r = await openRig();
    await r.gateway.inject({ thread: "t1", text: "hello" });
    await until(() => r.gateway.sent.length > 0, "the reply");
    await r.session.idle();
    const text = r.gateway.sent[0]?.text;
    expect(
      await r.gateway.context.undelivered?.("t1", "mock-msg-1", "130429 rate limit", { retryAfterMs: 20 }),
    ).toBe(true);
    await until(() => r.gateway.sent.length === 2, "the piece sent again");
    expect(r.gateway.sent[1]?.text).toBe(text);
    const [row] = await r.db.outbox.list("mock", "t1");
    expect(row).toMatchObject({ status: "sent", platformId: "mock-msg-2" });
  });
});
