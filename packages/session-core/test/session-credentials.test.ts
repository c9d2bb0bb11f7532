// Rejected credentials stop one gateway, not the service: the piece stays pending (its attempts not
// counted), one error names the variable, status() shows the reason, other gateways keep working.
import { describe, expect, it } from "vitest";
import { createMockGateway } from "../src/testing/index.js";
import { type Rig, until, useRig } from "./session-harness.js";

const openRig = useRig();

const credentialErrors = (r: Rig) =>
  r.logs.lines().filter((l) => l.level === 50 && String(l.msg).startsWith("credentials rejected by"));

describe("rejected credentials", () => {
  it("a send answered with rejected credentials stops that gateway and keeps the piece pending", async () => {
    const other = createMockGateway({ name: "other" });
    const r = await openRig({ extraGateways: [other] });
    r.gateway.failures.push({ status: 401, envVar: "MOCK_BOT_TOKEN" });
    await r.gateway.inject({ thread: "t1", text: "hello" });
    await until(() => r.session.status().mock?.state === "stopped", "the gateway stopped");

    expect(r.session.status()).toEqual({
      mock: {
        state: "stopped",
        reason: expect.stringMatching(/^credentials rejected by mock: check MOCK_BOT_TOKEN \(.+\)$/),
        // The message came in; the refused send is no platform call that worked.
        lastInboundAgeSeconds: expect.any(Number),
      },
      other: { state: "running" },
    });
    await until(() => !r.gateway.started, "stop() called on the gateway");
    const rows = await r.db.outbox.list("mock", "t1");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "pending", attempts: 0 });

    // The other gateway still answers; idle() is not held up by the stopped gateway's piece.
    await other.inject({ thread: "t2", text: "still there?" });
    await r.session.idle();
    expect(other.textsTo("t2")).toHaveLength(1);
    expect(r.gateway.attempts).toBe(1);
    expect(credentialErrors(r)).toHaveLength(1);
    expect(credentialErrors(r)[0]).toMatchObject({ envVar: "MOCK_BOT_TOKEN", gateway: "mock" });
  });

  it("a second reply through a stopped gateway is not tried and logs nothing more", async () => {
    const r = await openRig();
    r.gateway.failures.push({ status: 401 });
    await r.gateway.inject({ thread: "t1", text: "one" });
    await until(() => r.session.status().mock?.state === "stopped", "the gateway stopped");
    // A message recorded before the stop (a webhook in flight) still runs its turn; its reply waits.
    await r.session.deliver({
      gateway: "mock",
      dedupKey: "late",
      thread: "t3",
      text: "two",
      author: { id: "u" },
    });
    await r.session.idle();
    expect(r.gateway.attempts).toBe(1);
    const pending = [...(await r.db.outbox.list("mock", "t1")), ...(await r.db.outbox.list("mock", "t3"))];
    expect(pending.map((row) => [row.status, row.attempts])).toEqual([
      ["pending", 0],
      ["pending", 0],
    ]);
    expect(credentialErrors(r)).toHaveLength(1);
  });

  it("credentialsRejected from a connection stops the gateway and its tasks, once", async () => {
    const other = createMockGateway({ name: "other" });
    const r = await openRig({ extraGateways: [other] });
    const ctx = r.gateway.context;
    let polls = 0;
    ctx.scheduler.every("poll", 5, async () => {
      polls += 1;
    });
    await until(() => polls > 0, "the poll task running");
    ctx.credentialsRejected("MOCK_BOT_TOKEN", "close 4004 Authentication failed");
    ctx.credentialsRejected("MOCK_BOT_TOKEN", "close 4004 Authentication failed");
    await until(() => !r.gateway.started, "stop() called on the gateway");
    expect(ctx.scheduler.list()).toEqual([]);
    expect(r.session.status().mock).toEqual({
      state: "stopped",
      reason: "credentials rejected by mock: check MOCK_BOT_TOKEN (close 4004 Authentication failed)",
    });
    expect(credentialErrors(r)).toHaveLength(1);
    const after = polls;
    await new Promise((ok) => setTimeout(ok, 50));
    expect(polls).toBe(after);

    await other.inject({ thread: "t2", text: "hello" });
    await r.session.idle();
    expect(other.textsTo("t2")).toHaveLength(1);
    expect(r.session.status().other).toEqual({
      state: "running",
      lastInboundAgeSeconds: expect.any(Number),
      lastPlatformCallAgeSeconds: expect.any(Number),
    });
  });
});
