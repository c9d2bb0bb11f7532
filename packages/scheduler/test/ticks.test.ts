// Tick times as croner documents them for daylight-saving transitions (CronOptions.fixedTimeRule in its types):
// a fixed-time pattern in the spring gap runs at the first valid time after it, and once on a repeated autumn hour.
import { describe, expect, it } from "vitest";
import { TickClock } from "../src/index.js";

const iso = (ms: number[]) => ms.map((t) => new Date(t).toISOString());

describe("ticks in a named timezone across daylight saving (Europe/Berlin, 2026)", () => {
  it("02:30 daily: on 29 March (02:00 -> 03:00) it runs at 03:00 local, once; the days around it at 02:30", () => {
    const clock = new TickClock({ cron: "30 2 * * *", timezone: "Europe/Berlin" });
    const ticks = clock.between(Date.UTC(2026, 2, 27, 12), Date.UTC(2026, 2, 30, 12));
    // 28 March 02:30 CET = 01:30Z; 29 March 03:00 CEST = 01:00Z; 30 March 02:30 CEST = 00:30Z.
    expect(iso(ticks)).toEqual([
      "2026-03-28T01:30:00.000Z",
      "2026-03-29T01:00:00.000Z",
      "2026-03-30T00:30:00.000Z",
    ]);
  });

  it("02:30 daily: on 25 October (03:00 -> 02:00, 02:30 happens twice) it runs once, at the first 02:30", () => {
    const clock = new TickClock({ cron: "30 2 * * *", timezone: "Europe/Berlin" });
    const ticks = clock.between(Date.UTC(2026, 9, 24, 12), Date.UTC(2026, 9, 25, 12));
    expect(iso(ticks)).toEqual(["2026-10-25T00:30:00.000Z"]);
  });

  it("every 30 minutes by the local clock: the 23-hour spring day has 46 ticks, none doubled", () => {
    const clock = new TickClock({ cron: "*/30 * * * *", timezone: "Europe/Berlin" });
    // 29 March local day: 00:00 CET (28 March 23:00Z) to 24:00 CEST (29 March 22:00Z): 23 real hours.
    const ticks = clock.between(Date.UTC(2026, 2, 28, 23) - 1, Date.UTC(2026, 2, 29, 22) - 1);
    expect(ticks).toHaveLength(46);
    expect(new Set(ticks).size).toBe(46);
  });

  it("every is anchored at the epoch, so every instance computes the same tick times", () => {
    const clock = new TickClock({ everyMs: 15 * 60_000, timezone: "UTC" });
    expect(iso([clock.next(Date.UTC(2026, 11, 1, 9, 7, 12))!])).toEqual(["2026-12-01T09:15:00.000Z"]);
  });

  it("a six-field pattern ticks on seconds", () => {
    const clock = new TickClock({ cron: "*/20 * * * * *", timezone: "UTC" });
    expect(clock.between(Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1, 0, 1))).toHaveLength(3);
  });
});
