import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { DeafWatch } from "../src/index.js";

function watchRig(afterMs: number) {
  const logs: { level: number; msg: string; silentMs: number }[] = [];
  const rig = { clock: 0, reconnects: 0, logs };
  const watch = new DeafWatch({
    afterMs,
    logger: pino({}, { write: (line: string) => void logs.push(JSON.parse(line)) }),
    connection: "Socket Mode",
    reconnect: () => {
      rig.reconnects += 1;
    },
    now: () => rig.clock,
  });
  return { rig, watch };
}

describe("DeafWatch (deafAfter)", () => {
  it("a connection up but silent for afterMs is reopened once, with a warning naming the silence", () => {
    const { rig, watch } = watchRig(60_000);
    rig.clock = 59_000;
    expect(watch.check(true)).toBe(false);
    rig.clock = 61_000;
    expect(watch.check(true)).toBe(true);
    expect(watch.check(true)).toBe(false);
    expect(rig.reconnects).toBe(1);
    expect(rig.logs).toHaveLength(1);
    expect(rig.logs[0]).toMatchObject({ level: 40, silentMs: 61_000 });
    expect(rig.logs[0]?.msg).toMatch(/nothing arrived for 61 s while Socket Mode is up/);
  });

  it("an event in time, or a connection that is down (its own reconnect runs), never triggers it", () => {
    const { rig, watch } = watchRig(60_000);
    rig.clock = 50_000;
    watch.heard();
    rig.clock = 100_000;
    expect(watch.check(true)).toBe(false);
    rig.clock = 200_000;
    expect(watch.check(false)).toBe(false);
    expect(rig.reconnects).toBe(0);
  });

  it("checks often enough to act within a quarter of afterMs, and at least every 30 s", () => {
    expect(watchRig(60_000).watch.checkEveryMs).toBe(15_000);
    expect(watchRig(3_600_000).watch.checkEveryMs).toBe(30_000);
  });
});
