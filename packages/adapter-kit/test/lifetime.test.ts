// A gateway's lifetime: the context only between start and stop; stop aborts the calls in flight and
// a start after it hands out a signal that is not aborted.
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { GatewayContext } from "../src/gateway.js";
import { GatewayLifetime } from "../src/lifetime.js";

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
