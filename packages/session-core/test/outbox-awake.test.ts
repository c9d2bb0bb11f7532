// A sender says it looks on its own (outbox-awake.ts): after a pass that sent pieces, and only while
// other instances' wakes came lately, it announces `outbox-awake` with the partitions it sends (at
// most twice a second) and looks every wake window for 3 s; an instance that heard it for every
// partition it does not send itself sends no `outbox` wake for a second (before, each sent one per
// 100 ms window with replies: 0.04-0.12 NOTIFY a message on three instances in the cluster bench,
// #45.3), then wakes the senders again.
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ClusterMessage, Coordination } from "../src/coordination.js";
import { GatewayRegistry } from "../src/index.js";
import { OUTBOX_AWAKE_LOOKS_MS, OUTBOX_AWAKE_MS, OutboxAwake } from "../src/outbox-awake.js";
import { OUTBOX_PARTITIONS } from "../src/outbox-shares.js";
import type { SessionParts } from "../src/parts.js";
import { SessionLead, type SessionLeadDeps } from "../src/session-lead.js";
import { OUTBOX_WAKE_WINDOW_MS, sessionSender } from "../src/session-sender.js";
import type { Previews } from "../src/streaming.js";
import { createMemoryCluster, createMemorySessionStore } from "../src/testing/index.js";
import { sharesRig } from "./outbox-shares-fixture.js";

afterEach(() => {
  vi.useRealTimers();
});

const awakes = (published: ClusterMessage[]) => published.filter((m) => m.kind === "outbox-awake");
/** The sender's passes of its own: wakes from the shares (nothing else wakes the fake sender here). */
const looks = (calls: string[]) => calls.filter((c) => c === "wake(true)").length;

describe("a sender after a pass that sent pieces", () => {
  it("says it is awake for its partitions only while others woke it lately, at most twice a second, and passes on its own meanwhile", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(50_000);
    const awake = new OutboxAwake(OUTBOX_PARTITIONS);
    const r = sharesRig({ awake: { state: awake, lookEveryMs: OUTBOX_WAKE_WINDOW_MS } });
    r.shares.lead();
    r.grantAll();
    const woken = looks(r.calls); // the roles' grants wake it
    // Alone (no other instance's wake heard): nothing said, no passes of its own.
    r.pass(3);
    vi.advanceTimersByTime(1_000);
    expect(awakes(r.published)).toEqual([]);
    expect(looks(r.calls)).toBe(woken);
    awake.othersWoke();
    r.pass(0); // a pass that sent nothing
    expect(awakes(r.published)).toEqual([]);
    r.pass(2);
    expect(awakes(r.published)).toEqual([{ kind: "outbox-awake", parts: [0, 1, 2, 3] }]);
    vi.advanceTimersByTime(OUTBOX_AWAKE_MS / 2 - 1);
    expect(looks(r.calls) - woken).toBe(4); // every 100 ms
    r.pass(2);
    expect(awakes(r.published)).toHaveLength(1);
    vi.advanceTimersByTime(1);
    r.pass(1);
    expect(awakes(r.published)).toHaveLength(2);
    // No busy pass since: its passes of its own end OUTBOX_AWAKE_LOOKS_MS after the last.
    vi.advanceTimersByTime(OUTBOX_AWAKE_LOOKS_MS);
    const passes = looks(r.calls);
    expect(passes - woken).toBe(OUTBOX_AWAKE_LOOKS_MS / OUTBOX_WAKE_WINDOW_MS + 4);
    vi.advanceTimersByTime(7_000);
    expect(looks(r.calls)).toBe(passes);
    // Others quiet for 10 s (they were told): it stops saying so, and passes on its own no more.
    r.pass(4);
    vi.advanceTimersByTime(1_000);
    expect(awakes(r.published)).toHaveLength(2);
    expect(looks(r.calls)).toBe(passes);
    await r.shares.stop();
  });

  it("of some partitions (the others shared with helpers) names those", () => {
    const awake = new OutboxAwake(OUTBOX_PARTITIONS);
    awake.othersWoke();
    const r = sharesRig({ awake: { state: awake, lookEveryMs: OUTBOX_WAKE_WINDOW_MS } });
    r.shares.lead();
    for (const p of [2, 0]) r.grant(p);
    r.pass(5);
    expect(awakes(r.published)).toEqual([{ kind: "outbox-awake", parts: [0, 2] }]);
  });
});

describe("an instance's wakes for the replies it commits", () => {
  /** A session's sender on an instance that sends nothing itself; its `outbox` announcements in `published`. */
  function nonSender(awake: OutboxAwake) {
    const published: ClusterMessage[] = [];
    const coordination = {
      shared: true,
      publish: async (m: ClusterMessage) => {
        published.push(m);
      },
    } as unknown as Coordination;
    const logger = pino({ level: "silent" });
    const sender = sessionSender({
      previews: undefined as unknown as Previews,
      store: createMemorySessionStore(),
      registry: new GatewayRegistry(),
      loggerFor: () => logger,
      logger,
      outbox: undefined,
      coordination,
      observer: undefined,
      onCredentials: () => {},
      platformCallSucceeded: () => {},
      told: () => awake.told(),
    });
    return { sender, published };
  }

  it("are not sent for a second after every partition's sender said it is awake, then are again", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(80_000);
    const awake = new OutboxAwake(OUTBOX_PARTITIONS);
    const { sender, published } = nonSender(awake);
    awake.heard([0, 1]); // the leader's share
    awake.heard([2, 3]); // a helper's
    sender.wake(); // a reply committed here; its sender is another instance
    vi.advanceTimersByTime(OUTBOX_WAKE_WINDOW_MS);
    sender.wake();
    vi.advanceTimersByTime(OUTBOX_AWAKE_MS - OUTBOX_WAKE_WINDOW_MS - 1);
    expect(published).toEqual([]);
    vi.advanceTimersByTime(1);
    sender.wake();
    expect(published).toEqual([{ kind: "outbox" }]);
  });

  it("are sent while one partition's sender did not say so, unless this instance sends that partition", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const awake = new OutboxAwake(OUTBOX_PARTITIONS);
    const { sender, published } = nonSender(awake);
    awake.heard([0, 1, 2]);
    sender.wake();
    expect(published).toEqual([{ kind: "outbox" }]);
    vi.advanceTimersByTime(OUTBOX_WAKE_WINDOW_MS);
    awake.own([3]);
    awake.heard([0, 1, 2]);
    sender.wake();
    vi.advanceTimersByTime(OUTBOX_WAKE_WINDOW_MS);
    expect(published).toHaveLength(1);
  });
});

describe("a shared session", () => {
  it("takes other instances' outbox-awake as said for their partitions: told once all four were", () => {
    const parts = {
      sender: { wake() {}, pressure: undefined },
      registry: { get: () => undefined, list: () => [] },
      logger: pino({ level: "silent" }),
      stopping: () => false,
    } as unknown as SessionParts;
    const coordination = createMemoryCluster().instance("b");
    const lead = new SessionLead({ parts, coordination } as unknown as SessionLeadDeps);
    lead.onCluster({ kind: "outbox-awake", parts: [0, 1] });
    expect(lead.told()).toBe(false);
    lead.onCluster({ kind: "outbox-awake", parts: [2, 3] });
    expect(lead.told()).toBe(true);
  });
});
