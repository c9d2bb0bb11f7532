// The sending instance hears `outbox` announcements from every other instance (#45.3): each wakes
// its sender at once, then at most once per window however many instances announced in it, so its
// passes over the outbox (each ending with an empty read) do not grow with the instances.
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SessionParts } from "../src/parts.js";
import { SessionLead, type SessionLeadDeps } from "../src/session-lead.js";
import { OUTBOX_WAKE_WINDOW_MS } from "../src/session-sender.js";
import { createMemoryCluster } from "../src/testing/index.js";

afterEach(() => {
  vi.useRealTimers();
});

/** A shared session's lead part with only what hearing announcements uses; its sender's wakes counted. */
function lead() {
  const wakes: boolean[] = [];
  const sender = { wake: (fromElsewhere = false) => wakes.push(fromElsewhere), pressure: undefined };
  const parts = {
    sender,
    registry: { get: () => undefined, list: () => [] },
    logger: pino({ level: "silent" }),
    stopping: () => false,
  } as unknown as SessionParts;
  const deps = { parts, coordination: createMemoryCluster().instance("a") } as unknown as SessionLeadDeps;
  return { lead: new SessionLead(deps), wakes };
}

describe("outbox announcements heard by the sending instance", () => {
  it("wake the sender at once, and the rest of the window's announcements (from any instance) once at its end", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const { lead: l, wakes } = lead();
    l.onCluster({ kind: "outbox" });
    expect(wakes).toEqual([true]);
    for (let i = 0; i < 6; i++) l.onCluster({ kind: "outbox" }); // two other instances, three windows' worth each
    expect(wakes).toEqual([true]);
    vi.advanceTimersByTime(OUTBOX_WAKE_WINDOW_MS - 1);
    expect(wakes).toEqual([true]);
    vi.advanceTimersByTime(1);
    expect(wakes).toEqual([true, true]);
    vi.advanceTimersByTime(1_000);
    expect(wakes).toEqual([true, true]);
    l.onCluster({ kind: "outbox" });
    expect(wakes).toEqual([true, true, true]);
  });
});
