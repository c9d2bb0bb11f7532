// The HoldTimers tests' set-up (hold-timers*.test.ts): one HoldTimers on vitest's fake clock.
import { vi } from "vitest";
import { HoldTimers } from "../src/hold-timers.js";

/**
 * Timers of a 1,000 ms hold gathering holds that end within 250 ms, on a fake clock (the calling file
 * restores the real one after each test); `fired` in the order they went.
 */
export function timers() {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  vi.setSystemTime(300_000);
  const fired: string[] = [];
  const t = new HoldTimers(1000, 250);
  const keep = (id: string) => t.keep(id, () => fired.push(id));
  return { t, keep, fired };
}
