import { type AddressInfo, createServer } from "node:net";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it, vi } from "vitest";
import { Bus, InstanceLink, type LinkLost } from "../src/index.js";
import { lockHolders, queriesOf, sleep, terminate, usePostgres, waitFor } from "./helpers.js";
import { holdingProxy } from "./proxies.js";

describe.skipIf(postgresMissing)("InstanceLink against a real PostgreSQL", () => {
  const pg = usePostgres();

  it("sets server-side TCP keepalive on its session and names itself in pg_stat_activity", async () => {
    const link = new InstanceLink({
      connectionString: pg.url,
      serverKeepalive: { idleS: 7, intervalS: 3, count: 2 },
    });
    try {
      await link.connect();
      expect(link.generation).toBe(1);
      const rows = await link.query<{ idle: string; interval: string; count: string }>(
        "SELECT current_setting('tcp_keepalives_idle') AS idle, current_setting('tcp_keepalives_interval') AS interval, current_setting('tcp_keepalives_count') AS count",
      );
      expect(rows).toEqual([{ idle: "7", interval: "3", count: "2" }]);
      const app = await pg.mon.query("SELECT application_name FROM pg_stat_activity WHERE pid = $1", [
        link.backendPid,
      ]);
      expect(app.rows).toEqual([{ application_name: "agentsvc-pg-cluster" }]);
    } finally {
      await link.close();
    }
  });

  it("sends its statements one after another: bus messages, lock requests and queries never overlap on the session", async () => {
    const link = await pg.link({ healthCheckMs: 0 });
    const bus = new Bus(link);
    await bus.start();
    const seen = await queriesOf(async () => {
      await Promise.all([
        ...Array.from({ length: 20 }, (_, i) => link.tryLock(`serial-${i}`)),
        ...Array.from({ length: 20 }, (_, i) => bus.publish({ kind: "cancel", target: `m${i}` })),
        ...Array.from({ length: 20 }, () => link.query("SELECT pg_sleep(0.001)")),
      ]);
    });
    await bus.stop();
    // The 20 queries, and at least one statement each for the lock requests and the bus messages
    // (each kind shares statements among its own: lock-batch.ts, Bus.publish).
    expect(seen.length).toBeGreaterThanOrEqual(22);
    expect(seen.some((q) => q.text.includes("pg_notify"))).toBe(true);
    expect(seen.some((q) => q.text.includes("pg_try_advisory_lock"))).toBe(true);
    // Node-postgres would queue an overlapping statement itself, but deprecates relying on it.
    expect(seen.filter((q) => q.busy > 0)).toEqual([]);
  });

  it("connect() rejects when the first attempt fails (a wrong address is seen at start)", async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const port = (srv.address() as AddressInfo).port;
    await new Promise((r) => srv.close(r));
    const errors: string[] = [];
    const link = new InstanceLink({
      connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
      onError: (e) => errors.push(e.message),
    });
    await expect(link.connect()).rejects.toThrow(/ECONNREFUSED/);
    expect(link.connected).toBe(false);
    expect(link.generation).toBe(0);
    // No reconnect loop behind the caller's back after a failed first connect.
    await sleep(500);
    expect(errors).toEqual([]);
    await link.close();
  });

  it("a lock granted on a session that ended while the answer was in flight is not held, and the drop is reported", async () => {
    // A proxy on 127.0.0.1 holds back the server's bytes: the grant and the FATAL of the
    // terminated backend then reach the link together, as when a session dies mid-answer.
    const proxy = await holdingProxy(new URL(pg.url));
    const url = new URL(pg.url);
    url.port = String(proxy.port);
    const link = await pg.link({ connectionString: url.href, healthCheckMs: 0, reconnectMinMs: 60_000 });
    const lost: LinkLost[] = [];
    link.onLost((l) => lost.push(l));
    const onLost = vi.fn();
    const pid = link.backendPid!;
    proxy.hold = true;
    const taking = link.tryLock("agentsvc:test:in-flight", onLost);
    await waitFor(
      "the server granted the lock",
      async () => (await lockHolders(pg.mon, "agentsvc:test:in-flight")).includes(pid),
      5_000,
    );
    await terminate(pg.mon, pid);
    await waitFor("the server ended the session", () => proxy.serverEnded, 5_000);
    proxy.release();
    expect(await taking).toBe(false);
    expect(link.isHeld("agentsvc:test:in-flight")).toBe(false);
    expect(link.heldLocks()).toEqual([]);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatchObject({ names: [], generation: 1 });
    expect(onLost).not.toHaveBeenCalled();
    expect(await lockHolders(pg.mon, "agentsvc:test:in-flight")).toEqual([]);
    await link.close();
    await proxy.close();
  });

  it("close() ends the session, so the server releases every lock at once", async () => {
    const link = new InstanceLink({ connectionString: pg.url });
    await link.connect();
    const lost: LinkLost[] = [];
    link.onLost((l) => lost.push(l));
    expect(await link.tryLock("agentsvc:test:close")).toBe(true);
    await link.close();
    await waitFor(
      "the lock released",
      async () => (await lockHolders(pg.mon, "agentsvc:test:close")).length === 0,
      5_000,
    );
    expect(lost).toEqual([]);
    expect(link.connected).toBe(false);
  });

  describe("the health check's clock (fake timers; statements held by advisory locks a monitor holds)", () => {
    /** Until the link's session waits for a lock (its statement is in flight on the server). */
    async function waiting(pid: number, count: number): Promise<void> {
      for (let i = 0; i < 5_000; i++) {
        const res = await pg.mon.query("SELECT 1 FROM pg_locks WHERE pid = $1 AND NOT granted", [pid]);
        if (res.rowCount === count) return;
        await new Promise((r) => setImmediate(r));
      }
      throw new Error(`the link's session never waited for ${count} lock(s)`);
    }

    /** A link checked every 1000 fake ms, with the fake clock at 500 ms, and its lost reports. */
    async function fakeClockLink() {
      vi.useFakeTimers({
        toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance"],
      });
      const link = new InstanceLink({ connectionString: pg.url, healthCheckMs: 1000 });
      const lost: LinkLost[] = [];
      link.onLost((l) => lost.push(l));
      await link.connect();
      await vi.advanceTimersByTimeAsync(500);
      return { link, lost, pid: link.backendPid! };
    }

    /** Closes the link, back to real timers, and the monitor gives back the locks it took. */
    async function release(link: InstanceLink): Promise<void> {
      await link.close();
      vi.useRealTimers();
      await pg.mon.query("SELECT pg_advisory_unlock_all()");
    }

    it("a SELECT 1 that waited behind statements the server answered in time does not fail it, however long it waited", async () => {
      await pg.mon.query("SELECT pg_advisory_lock(901), pg_advisory_lock(902)");
      const { link, lost, pid } = await fakeClockLink();
      try {
        const first = link.query("SELECT pg_advisory_lock(901)");
        const second = link.query("SELECT pg_advisory_lock(902)");
        await waiting(pid, 1); // the first is in flight from 500 ms
        await vi.advanceTimersByTimeAsync(500); // 1000 ms: the check's SELECT 1 queues behind both
        await vi.advanceTimersByTimeAsync(400);
        await pg.mon.query("SELECT pg_advisory_unlock(901)"); // answered after 900 ms in flight
        await first;
        await waiting(pid, 1); // the second is in flight from 1400 ms
        await vi.advanceTimersByTimeAsync(800); // 2200 ms: SELECT 1 has waited 1200 ms, the second ran 800
        expect(link.connected).toBe(true);
        await pg.mon.query("SELECT pg_advisory_unlock(902)");
        await second;
        expect(await link.query("SELECT 1 AS one")).toEqual([{ one: 1 }]); // queued after the check's
        await vi.advanceTimersByTimeAsync(1000); // past every deadline the check could have set
        expect(lost).toEqual([]);
        expect(link.connected).toBe(true);
        expect(link.generation).toBe(1);
      } finally {
        await release(link);
      }
    });

    it("sends no second SELECT 1 while one still waits; the check after its answer sends the next", async () => {
      await pg.mon.query("SELECT pg_advisory_lock(904), pg_advisory_lock(905)");
      const { link, lost, pid } = await fakeClockLink();
      const selectOnes = async (work: () => Promise<void>) =>
        (await queriesOf(work)).filter((q) => q.text === "SELECT 1").length;
      try {
        const waitedThroughTwoTicks = await selectOnes(async () => {
          const first = link.query("SELECT pg_advisory_lock(904)");
          const second = link.query("SELECT pg_advisory_lock(905)");
          await waiting(pid, 1); // the first is in flight from 500 ms
          await vi.advanceTimersByTimeAsync(900); // 1400 ms: the check's SELECT 1 queued at 1000
          await pg.mon.query("SELECT pg_advisory_unlock(904)"); // answered after 900 ms in flight
          await first;
          await waiting(pid, 1); // the second is in flight from 1400 ms
          await vi.advanceTimersByTimeAsync(700); // 2100 ms: the next tick came while SELECT 1 waits
          await pg.mon.query("SELECT pg_advisory_unlock(905)");
          await second;
          await link.query("SELECT 0"); // queued after every SELECT 1 the ticks sent
        });
        expect(waitedThroughTwoTicks).toBe(1);
        const nextTick = await selectOnes(async () => {
          await vi.advanceTimersByTimeAsync(1000); // 3100 ms: the tick at 3000
          await link.query("SELECT 0");
        });
        expect(nextTick).toBe(1);
        expect(lost).toEqual([]);
      } finally {
        await release(link);
      }
    });

    it("a statement the SELECT 1 waits behind, unanswered for the check's time, fails it", async () => {
      await pg.mon.query("SELECT pg_advisory_lock(903)");
      const { link, lost, pid } = await fakeClockLink();
      try {
        const stuck = link.query("SELECT pg_advisory_lock(903)").catch((error: unknown) => error);
        await waiting(pid, 1); // in flight from 500 ms
        await vi.advanceTimersByTimeAsync(500); // 1000 ms: the check's SELECT 1 queues behind it
        expect(lost).toEqual([]);
        await vi.advanceTimersByTimeAsync(500); // 1500 ms: no answer for 1000 ms
        expect(lost.map((l) => l.error.message)).toEqual([
          "health check: no answer to a statement SELECT 1 waits behind in 1000 ms",
        ]);
        expect(link.connected).toBe(false);
        expect(await stuck).toBeInstanceOf(Error);
      } finally {
        await release(link);
      }
    });
    it("lock requests waiting behind the statement that failed it answer false (a give-back announcing it, not-held), not the connection's error", async () => {
      await pg.mon.query("SELECT pg_advisory_lock(906)");
      const { link, lost, pid } = await fakeClockLink();
      try {
        expect(await link.tryLock("agentsvc:test:giving-back")).toBe(true);
        expect(await link.tryLock("agentsvc:test:announcing")).toBe(true);
        const stuck = link.query("SELECT pg_advisory_lock(906)").catch((error: unknown) => error);
        await waiting(pid, 1); // in flight from 500 ms
        const taking = link.tryLock("agentsvc:test:behind");
        const giving = link.unlock("agentsvc:test:giving-back");
        const announcing = link.unlockAndNotify("agentsvc:test:announcing", { channel: "c", payload: "p" });
        await vi.advanceTimersByTimeAsync(1000); // 1500 ms: no answer for 1000 ms, the link drops
        expect(lost).toHaveLength(1);
        await vi.advanceTimersByTimeAsync(1000); // the blocked session's socket is destroyed
        expect(await stuck).toBeInstanceOf(Error);
        expect(await taking).toBe(false);
        expect(await giving).toBe(false);
        expect(await announcing).toBe("not-held");
      } finally {
        await release(link);
      }
    });
  });

  it("a backend that stops answering fails the health check: locks reported lost, the link reconnects", async () => {
    const link = new InstanceLink({ connectionString: pg.url, healthCheckMs: 300, reconnectMinMs: 50 });
    await link.connect();
    const lost: LinkLost[] = [];
    link.onLost((l) => lost.push(l));
    expect(await link.tryLock("agentsvc:test:hung")).toBe(true);
    const pid = link.backendPid!;
    // A frozen server process: the socket stays open, nothing answers (a half-open connection).
    process.kill(pid, "SIGSTOP");
    try {
      await waitFor("lost", () => lost.length === 1, 5_000);
      expect(lost[0]!.names).toEqual(["agentsvc:test:hung"]);
      expect(lost[0]!.error.message).toMatch(/health check: no answer to SELECT 1 in 300 ms/);
    } finally {
      process.kill(pid, "SIGCONT");
    }
    await waitFor("reconnected", () => link.connected && link.generation === 2, 5_000);
    // Once the old backend runs again it finds its socket closed, ends, and its lock goes with it.
    await waitFor(
      "the old session's lock released",
      async () => (await lockHolders(pg.mon, "agentsvc:test:hung")).length === 0,
      10_000,
    );
    expect(await link.tryLock("agentsvc:test:hung")).toBe(true);
    await link.close();
  });
});
