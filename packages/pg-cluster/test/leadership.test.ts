import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { InstanceLink, Leadership, leaderLockName } from "../src/index.js";
import { lockHolders, sleep, terminate, usePostgres, waitFor } from "./helpers.js";

// Leadership over links in this process (the source under test); leadership-processes.test.ts runs
// instances as separate processes over the built package.
const RETRY_MS = 200;

describe.skipIf(postgresMissing)("leadership between links", () => {
  const pg = usePostgres();

  it("stop() aborts the leader's signal, waits for its work, then releases to another link", async () => {
    const name = "slack:workspace";
    const a = new InstanceLink({ connectionString: pg.url });
    const b = new InstanceLink({ connectionString: pg.url });
    await a.connect();
    await b.connect();
    const la = new Leadership(a, { retryMs: RETRY_MS });
    const lb = new Leadership(b, { retryMs: RETRY_MS });
    const log: string[] = [];
    try {
      const ha = la.lead(name, {
        onAcquired: (signal) =>
          new Promise<void>((done) => {
            log.push("a acquired");
            signal.addEventListener("abort", () => {
              log.push("a aborted");
              // The old connection takes a while to close; the lock must stay until it has.
              setTimeout(() => {
                log.push("a drained");
                done();
              }, 300);
            });
          }),
      });
      await waitFor("a leads", () => ha.isLeader, 5_000);
      const hb = lb.lead(name, {
        onAcquired: () => {
          log.push("b acquired");
        },
      });
      await sleep(RETRY_MS * 3);
      expect(hb.isLeader).toBe(false);
      await ha.stop();
      expect(ha.isLeader).toBe(false);
      await waitFor("b leads", () => hb.isLeader, 5_000);
      expect(log).toEqual(["a acquired", "a aborted", "a drained", "b acquired"]);
      expect(await lockHolders(pg.mon, leaderLockName(name))).toEqual([b.backendPid]);
    } finally {
      await la.stop();
      await lb.stop();
      await a.close();
      await b.close();
    }
  });

  it("stop() while the first lock attempt is in flight gives the lock back and never runs onAcquired", async () => {
    const name = "telegram:bot";
    const a = new InstanceLink({ connectionString: pg.url, healthCheckMs: 0 });
    const b = new InstanceLink({ connectionString: pg.url, healthCheckMs: 0 });
    await a.connect();
    await b.connect();
    const la = new Leadership(a, { retryMs: RETRY_MS });
    const lb = new Leadership(b, { retryMs: RETRY_MS });
    const acquired: string[] = [];
    try {
      // lead() sends pg_try_advisory_lock at once; stop() comes before its answer.
      const ha = la.lead(name, { onAcquired: () => void acquired.push("a") });
      await ha.stop();
      expect(ha.isLeader).toBe(false);
      expect(a.isHeld(leaderLockName(name))).toBe(false);
      expect(await lockHolders(pg.mon, leaderLockName(name))).toEqual([]);
      // Free for the next instance at once (not only when a's link closes).
      const hb = lb.lead(name, { onAcquired: () => void acquired.push("b") });
      await waitFor("b leads", () => hb.isLeader, 5_000);
      expect(acquired).toEqual(["b"]);
    } finally {
      await la.stop();
      await lb.stop();
      await a.close();
      await b.close();
    }
  });

  it("a leader whose connection is terminated is told (signal aborts, onLost) and another link takes over", async () => {
    const name = "signal:+15550001";
    // a reconnects after 1-2 s (and then tries at once), so b (every 200 ms) takes over first;
    // with a fast reconnect either may win the race, which is fine but not what this test checks.
    const a = new InstanceLink({ connectionString: pg.url, reconnectMinMs: 2_000 });
    const b = new InstanceLink({ connectionString: pg.url, reconnectMinMs: 50, reconnectMaxMs: 500 });
    await a.connect();
    await b.connect();
    const la = new Leadership(a, { retryMs: RETRY_MS });
    const lb = new Leadership(b, { retryMs: RETRY_MS });
    const log: string[] = [];
    try {
      const ha = la.lead(name, {
        onAcquired: (signal) => {
          log.push("a acquired");
          signal.addEventListener("abort", () => log.push(`a aborted: ${(signal.reason as Error).message}`));
        },
        onLost: () => log.push("a lost"),
      });
      await waitFor("a leads", () => ha.isLeader, 5_000);
      const hb = lb.lead(name, {
        onAcquired: () => {
          log.push("b acquired");
        },
        onLost: () => log.push("b lost"),
      });
      await sleep(RETRY_MS * 3);
      expect(hb.isLeader).toBe(false);

      const aPid = a.backendPid!;
      await terminate(pg.mon, aPid);
      await waitFor("b leads", () => hb.isLeader, 5_000);
      expect(ha.isLeader).toBe(false);
      expect(log.slice(0, 3)).toEqual([
        "a acquired",
        `a aborted: leadership of "${name}" lost: the PostgreSQL link dropped`,
        "a lost",
      ]);
      // a reconnects and contends again, but b holds the name now.
      await waitFor("a reconnected", () => a.connected && a.backendPid !== aPid, 5_000);
      await sleep(RETRY_MS * 3);
      expect(ha.isLeader).toBe(false);
      expect(log).toEqual([
        "a acquired",
        `a aborted: leadership of "${name}" lost: the PostgreSQL link dropped`,
        "a lost",
        "b acquired",
      ]);
      expect(await lockHolders(pg.mon, leaderLockName(name))).toEqual([b.backendPid]);
    } finally {
      await la.stop();
      await lb.stop();
      await a.close();
      await b.close();
    }
  });

  it("a leader whose onAcquired rejects resigns, so another instance takes over", async () => {
    const name = "imap:inbox";
    const a = new InstanceLink({ connectionString: pg.url });
    const b = new InstanceLink({ connectionString: pg.url });
    await a.connect();
    await b.connect();
    const errors: string[] = [];
    const la = new Leadership(a, { retryMs: 5_000, onError: (e) => errors.push(e.message) });
    const lb = new Leadership(b, { retryMs: RETRY_MS });
    try {
      const ha = la.lead(name, {
        onAcquired: async () => {
          await sleep(100);
          throw new Error("IMAP login failed");
        },
      });
      await waitFor("a leads", () => ha.isLeader, 5_000);
      const hb = lb.lead(name, { onAcquired: () => undefined });
      await waitFor("b leads after a resigned", () => hb.isLeader, 5_000);
      expect(ha.isLeader).toBe(false);
      expect(errors).toEqual(["IMAP login failed"]);
    } finally {
      await la.stop();
      await lb.stop();
      await a.close();
      await b.close();
    }
  });
});
