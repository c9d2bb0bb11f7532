// A leader's heartbeat (#45.3): with `heartbeatMs`, the leader announces the names it leads, and an
// instance hearing it puts its next try off by `retryMs`: at rest the others send no lock statement,
// where they tried every retryMs. A leader gone silent (its session ended) is replaced by a retry.
// And the link counts a NOTIFY heard as an answer: a link that only hears heartbeats sends no SELECT 1.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it, vi } from "vitest";
import { Bus, InstanceLink, Leadership } from "../src/index.js";
import { queriesOf, sleep, terminate, usePostgres, waitFor } from "./helpers.js";

const HEARTBEAT_MS = 200;
/** Above HEARTBEAT_MS / 0.75: a live leader's next heartbeat always comes before a try. */
const RETRY_MS = 800;

/** Until `count()` reaches `n`, on the real event loop (the fake clock does not move by itself). */
async function heardCount(count: () => number, n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (count() < n) {
    if (Date.now() > deadline) throw new Error(`heard ${count()} NOTIFYs, waited for ${n}`);
    await new Promise((r) => setImmediate(r));
  }
}

describe.skipIf(postgresMissing)("a leader's heartbeat", () => {
  const pg = usePostgres();

  async function instance() {
    // No reconnect within the test: a leader whose session ends stays silent.
    const link = new InstanceLink({ connectionString: pg.url, healthCheckMs: 0, reconnectMinMs: 60_000 });
    await link.connect();
    const bus = new Bus(link);
    await bus.start();
    const leadership = new Leadership(link, { retryMs: RETRY_MS, heartbeatMs: HEARTBEAT_MS, bus });
    return { link, bus, leadership, tries: vi.spyOn(link, "tryLock") };
  }

  it("keeps the other instances from trying the lock while the leader lives; once its session ended, one of them takes over", async () => {
    const a = await instance();
    const b = await instance();
    try {
      // a's heartbeat names slack:first first, which b does not wait for: b still puts its try off.
      const first = a.leadership.lead("slack:first", { onAcquired: () => {} });
      const ha = a.leadership.lead("telegram:beat", { onAcquired: () => {} });
      await waitFor("a leads", () => ha.isLeader && first.isLeader, 5_000);
      const hb = b.leadership.lead("telegram:beat", { onAcquired: () => {} });
      await waitFor("b's first try answered", () => b.tries.mock.results.length === 1, 5_000);
      await b.tries.mock.results[0]?.value;
      // Without the heartbeat b would try every 600-1000 ms: 3 to 5 more tries here.
      await sleep(RETRY_MS * 4);
      expect(b.tries).toHaveBeenCalledTimes(1);
      expect(hb.isLeader).toBe(false);
      await terminate(pg.mon, a.link.backendPid as number);
      await waitFor("b leads once a went silent", () => hb.isLeader, 10_000);
      expect(b.tries.mock.calls.length).toBeGreaterThan(1);
    } finally {
      for (const i of [a, b]) {
        await i.leadership.stop();
        await i.bus.stop();
        await i.link.close();
      }
    }
  });

  it("is sent only while the instance leads, and puts off only the contenders of the names it carries", async () => {
    const a = await instance();
    try {
      const sent = await queriesOf(async () => {
        await sleep(HEARTBEAT_MS * 3);
      });
      expect(sent.filter((q) => q.text.includes("pg_notify"))).toEqual([]);
      const held = await pg.link({ healthCheckMs: 0 });
      await held.tryLock("agentsvc:leader:slack:other");
      const ha = a.leadership.lead("telegram:own", { onAcquired: () => {} });
      await waitFor("a leads", () => ha.isLeader, 5_000);
      a.tries.mockClear();
      a.leadership.lead("slack:other", { onAcquired: () => {} });
      const beats = await queriesOf(async () => {
        await sleep(RETRY_MS * 4);
      });
      expect(beats.filter((q) => q.text.includes("pg_notify")).length).toBeGreaterThanOrEqual(3);
      // Its tries of slack:other go on every retryMs: its heartbeats name telegram:own only.
      expect(a.tries.mock.calls.length).toBeGreaterThanOrEqual(3);
    } finally {
      await a.leadership.stop();
      await a.bus.stop();
      await a.link.close();
    }
  });

  it("without heartbeatMs, a leader sends none, and a waiting instance is not put off by another's", async () => {
    const a = await instance();
    const link = await pg.link({ healthCheckMs: 0 });
    const bus = new Bus(link);
    await bus.start();
    const plain = new Leadership(link, { retryMs: RETRY_MS, bus });
    const tries = vi.spyOn(link, "tryLock");
    try {
      const ha = a.leadership.lead("telegram:plain", { onAcquired: () => {} });
      await waitFor("a leads", () => ha.isLeader, 5_000);
      const senders: number[] = [];
      bus.subscribe("leader-alive", (_m, delivery) => void senders.push(delivery.senderPid));
      plain.lead("telegram:plain", { onAcquired: () => {} });
      await sleep(RETRY_MS * 4);
      // Its tries go on every retryMs, a's heartbeats heard or not.
      const tried = tries.mock.calls.filter(([name]) => name === "agentsvc:leader:telegram:plain");
      expect(tried.length).toBeGreaterThanOrEqual(3);
      expect(senders.length).toBeGreaterThanOrEqual(3);
      // Leading, it sends no heartbeat: every one heard is a's.
      const own = plain.lead("slack:plain", { onAcquired: () => {} });
      await waitFor("the plain leadership leads slack:plain", () => own.isLeader, 5_000);
      await sleep(HEARTBEAT_MS * 4);
      expect(new Set(senders)).toEqual(new Set([a.link.backendPid]));
    } finally {
      await plain.stop();
      await bus.stop();
      await a.leadership.stop();
      await a.bus.stop();
      await a.link.close();
    }
  });

  it("heard on another instance's link, counts as an answer there: no SELECT 1 while NOTIFYs arrive within healthCheckMs", async () => {
    // The link's clock is fake: on the real one a loaded machine (CI at load ~40) stalled the process
    // past the check between two NOTIFYs, and the check rightly sent a SELECT 1. Here each NOTIFY is
    // heard before the clock moves on: 48 of them 50 ms apart over four checks of 600 ms.
    vi.useFakeTimers({
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance"],
    });
    const link = new InstanceLink({ connectionString: pg.url, healthCheckMs: 600 });
    await link.connect();
    const bus = new Bus(link);
    await bus.start();
    let notifications = 0;
    link.onNotification(() => void notifications++);
    try {
      const heard = await queriesOf(async () => {
        for (let i = 1; i <= 48; i++) {
          await pg.mon.query(`NOTIFY ${bus.channel}, '{"kind":"leader-alive","target":"","names":[]}'`);
          await heardCount(() => notifications, i);
          await vi.advanceTimersByTimeAsync(50);
        }
      });
      expect(heard.filter((q) => q.text === "SELECT 1")).toEqual([]);
      // A check after the last one heard, the link asks the server (its answer in before the next tick).
      const quiet = await queriesOf(async () => {
        await vi.advanceTimersByTimeAsync(600);
        await link.query("SELECT 0");
      });
      expect(quiet.filter((q) => q.text === "SELECT 1").length).toBeGreaterThanOrEqual(1);
    } finally {
      await bus.stop();
      await link.close();
      vi.useRealTimers();
    }
  });
});
