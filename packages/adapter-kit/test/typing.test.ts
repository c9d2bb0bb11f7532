// The typing repeat on a manual clock and a recording scheduler: sent at once, repeated at the
// interval, ended by the reply, by a newer turn's typing, by its deadline and by stopAll.
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { GatewayScheduler, SelfSchedulingTask } from "../src/scheduler.js";
import { TypingRepeat } from "../src/typing.js";

function rig() {
  let now = 1_000_000;
  const tasks = new Map<string, { delay: number; task: SelfSchedulingTask }>();
  const cancelled: string[] = [];
  const scheduler: GatewayScheduler = {
    every: () => {},
    schedule: (name, delay, task) => void tasks.set(name, { delay, task }),
    cancel: (name) => {
      cancelled.push(name);
      return tasks.delete(name);
    },
    list: () => [],
  };
  const typing = new TypingRepeat({ intervalMs: 4_000, maxMs: 10_000, now: () => now });
  const sent: string[] = [];
  const ctx = { scheduler, logger: pino({ level: "silent" }) };
  const start = (thread: string, send = async () => void sent.push(thread)) =>
    typing.start(ctx, thread, send);
  /** Runs the thread's scheduled beat as the scheduler would; returns the next delay. */
  const beat = async (thread: string) => {
    const entry = tasks.get(`typing:${thread}`);
    if (!entry) throw new Error(`no task for ${thread}`);
    const next = await entry.task(new AbortController().signal);
    if (next === null) tasks.delete(`typing:${thread}`);
    return next;
  };
  return { typing, scheduler, tasks, cancelled, sent, start, beat, advance: (ms: number) => (now += ms) };
}

describe("TypingRepeat", () => {
  it("sends the indicator at once and repeats it every interval while the turn runs", async () => {
    const r = rig();
    await r.start("A");
    expect(r.sent).toEqual(["A"]);
    expect(r.tasks.get("typing:A")?.delay).toBe(4_000);
    expect(r.typing.size).toBe(1);
    r.advance(4_000);
    expect(await r.beat("A")).toBe(4_000);
    expect(r.sent).toEqual(["A", "A"]);
  });

  it("stops repeating when the reply goes out", async () => {
    const r = rig();
    await r.start("A");
    r.typing.stop(r.scheduler, "A");
    expect(r.cancelled).toEqual(["typing:A"]);
    expect(r.typing.size).toBe(0);
    r.typing.stop(r.scheduler, "A"); // nothing left: no second cancel
    expect(r.cancelled).toEqual(["typing:A"]);
  });

  it("gives up after maxMs when no reply ever stops it", async () => {
    const r = rig();
    await r.start("A");
    r.advance(10_001);
    expect(await r.beat("A")).toBeNull();
    expect(r.sent).toEqual(["A"]);
    expect(r.typing.size).toBe(0);
  });

  it("leaves a thread to the newer turn's typing: the older run ends without sending", async () => {
    const r = rig();
    await r.start("A");
    const older = r.tasks.get("typing:A")?.task;
    r.advance(1);
    await r.start("A");
    expect(await older?.(new AbortController().signal)).toBeNull();
    expect(r.sent).toEqual(["A", "A"]);
    expect(r.typing.size).toBe(1);
  });

  it("keeps repeating after a failed send", async () => {
    const r = rig();
    await r.start("A", async () => {
      throw new Error("429");
    });
    expect(r.tasks.get("typing:A")?.delay).toBe(4_000);
  });

  it("stopAll cancels every thread's repeats", async () => {
    const r = rig();
    await r.start("A");
    await r.start("B");
    r.typing.stopAll(r.scheduler);
    expect(r.cancelled.sort()).toEqual(["typing:A", "typing:B"]);
    expect(r.typing.size).toBe(0);
  });
});
