// A connection that went silently deaf looks "running" forever; status() (and so /health/ready) shows
// per gateway how long ago the platform last sent something and a call to it last worked (#43 item 11).
import { describe, expect, it } from "vitest";
import { createMockGateway } from "../src/testing/index.js";
import { until, useRig } from "./session-harness.js";

const openRig = useRig();

describe("gateway activity in status()", () => {
  it("shows no ages before anything happened, then the age of the last inbound message and of the last sent reply", async () => {
    const other = createMockGateway({ name: "other" });
    const r = await openRig({ extraGateways: [other] });
    expect(r.session.status().mock).toEqual({ state: "running" });
    await r.gateway.inject({ thread: "t1", text: "hello" });
    await r.session.idle();
    expect(r.gateway.textsTo("t1")).toHaveLength(1);
    const mock = r.session.status().mock;
    expect(mock?.lastInboundAgeSeconds).toBeGreaterThanOrEqual(0);
    expect(mock?.lastPlatformCallAgeSeconds).toBeGreaterThanOrEqual(0);
    // Another gateway's traffic is not this one's.
    expect(r.session.status().other).toEqual({ state: "running" });
  });

  it("a connection adapter reports events it ignores (heard) and platform calls that worked, each on its own", async () => {
    const r = await openRig();
    r.gateway.context.platformCallSucceeded?.();
    expect(r.session.status().mock?.lastPlatformCallAgeSeconds).toBeGreaterThanOrEqual(0);
    expect(r.session.status().mock?.lastInboundAgeSeconds).toBeUndefined();
    r.gateway.context.heard?.();
    await until(() => r.session.status().mock?.lastInboundAgeSeconds !== undefined, "the inbound age");
  });

  it("a failed send is no platform call that worked", async () => {
    const r = await openRig();
    r.gateway.failures.push({ status: 403 });
    await r.gateway.inject({ thread: "t1", text: "hello" });
    await r.session.idle();
    expect(r.session.status().mock?.lastInboundAgeSeconds).toBeGreaterThanOrEqual(0);
    expect(r.session.status().mock?.lastPlatformCallAgeSeconds).toBeUndefined();
  });
});
