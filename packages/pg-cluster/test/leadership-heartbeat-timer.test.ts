// The heartbeat's timer (#45.3, idle): armed when a name is won, and only while one is led, so an
// instance that leads nothing has no timer to wake for (it woke every heartbeatMs to say nothing).
// Fake clock, a link and a bus that only record: what is sent is leadership-heartbeat.test.ts's.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Bus, InstanceLink } from "../src/index.js";
import { Leadership } from "../src/index.js";

afterEach(() => {
  vi.useRealTimers();
});

const HEARTBEAT_MS = 9000;
const RETRY_MS = 15_000;

function instance(wins: (name: string) => boolean) {
  const sent: unknown[] = [];
  const link = {
    connected: true,
    onReconnect: () => () => {},
    tryLock: async (lock: string) => wins(lock),
    unlock: async () => true,
    unlockAndNotify: async () => "notified",
  } as unknown as InstanceLink;
  const bus = {
    channel: "agentsvc_control",
    subscribe: () => () => {},
    publish: async (m: { kind: string; names?: string[] }) => {
      if (m.kind === "leader-alive") sent.push(m.names);
    },
  } as unknown as Bus;
  const leadership = new Leadership(link, { bus, heartbeatMs: HEARTBEAT_MS, retryMs: RETRY_MS });
  return { leadership, sent };
}

describe("a leader's heartbeat timer", () => {
  it("is not armed on an instance that leads nothing", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { leadership, sent } = instance(() => false);
    expect(vi.getTimerCount()).toBe(0);
    leadership.lead("telegram:bot", { onAcquired: () => {} });
    await vi.advanceTimersByTimeAsync(0);
    // Only its retry of the lock is pending.
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS * 10);
    expect(sent).toEqual([]);
    await leadership.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("beats every heartbeatMs from the win while a name is led, and stops once none is", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { leadership, sent } = instance(() => true);
    const handle = leadership.lead("telegram:bot", { onAcquired: () => {} });
    await vi.advanceTimersByTimeAsync(0);
    expect(handle.isLeader).toBe(true);
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS - 1);
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1 + HEARTBEAT_MS * 2);
    expect(sent).toEqual([["telegram:bot"], ["telegram:bot"], ["telegram:bot"]]);
    await handle.stop();
    // The timer armed before the stop finds nothing led and arms no other.
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS);
    expect(vi.getTimerCount()).toBe(0);
    expect(sent).toHaveLength(3);
    await leadership.stop();
  });
});
