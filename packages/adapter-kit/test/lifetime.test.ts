// A gateway's lifetime: the context only between start and stop; stop aborts the calls in flight and
// a start after it hands out a signal that is not aborted.
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { GatewayContext } from "../src/gateway.js";
import { GatewayLifetime, LifetimeGateway } from "../src/lifetime.js";

const context = { logger: pino({ level: "silent" }) } as unknown as GatewayContext;

describe("GatewayLifetime", () => {
  it("holds the context from begin to end and aborts the signal at end", () => {
    const life = new GatewayLifetime();
    expect(life.context).toBeUndefined();
    life.begin(context);
    expect(life.context).toBe(context);
    const inFlight = life.signal;
    life.end();
    expect(life.context).toBeUndefined();
    expect(inFlight.aborted).toBe(true);
  });

  it("gives a restarted gateway a live signal", () => {
    const life = new GatewayLifetime();
    life.begin(context);
    life.end();
    life.begin(context);
    expect(life.signal.aborted).toBe(false);
  });
});

class Probe extends LifetimeGateway {
  seenAtOpen: GatewayContext | undefined | "not opened" = "not opened";
  fail = false;
  protected open(): void {
    this.seenAtOpen = this.life.context;
    if (this.fail) throw new Error("no secret");
  }
  get context() {
    return this.life.context;
  }
  get signal() {
    return this.life.signal;
  }
}

describe("LifetimeGateway", () => {
  it("start opens first and begins the lifetime after; stop ends it and aborts what is in flight", async () => {
    const g = new Probe();
    await g.start(context);
    expect(g.seenAtOpen).toBeUndefined();
    expect(g.context).toBe(context);
    const inFlight = g.signal;
    await g.stop();
    expect(g.context).toBeUndefined();
    expect(inFlight.aborted).toBe(true);
  });

  it("a start whose open throws fails and leaves the gateway without a context", async () => {
    const g = new Probe();
    g.fail = true;
    await expect(g.start(context)).rejects.toThrow("no secret");
    expect(g.context).toBeUndefined();
  });
});
