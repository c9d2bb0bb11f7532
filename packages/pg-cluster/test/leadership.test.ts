import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { InstanceLink, Leadership, leaderLockName } from "../src/index.js";
import { lockHolders, sleep, terminate, usePostgres, waitFor } from "./helpers.js";

const pkg = resolve(import.meta.dirname, "..");
const dist = join(pkg, "dist/index.js");
const RETRY_MS = 200;
const TAKEOVER_BOUND_MS = 5_000;

interface Line {
  event: string;
  pid: number;
  backendPid: number;
  t: number;
  [k: string]: unknown;
}

/** One instance in its own process: `test/fixtures/leader.mjs` over the built package. */
class Instance {
  readonly proc: ChildProcess;
  readonly lines: Line[] = [];
  stderr = "";
  constructor(url: string, name: string) {
    this.proc = spawn(
      process.execPath,
      [join(pkg, "test/fixtures/leader.mjs"), pathToFileURL(dist).href, url, name, String(RETRY_MS)],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    let buf = "";
    this.proc.stdout!.on("data", (d) => {
      buf += d;
      let nl = buf.indexOf("\n");
      while (nl >= 0) {
        this.lines.push(JSON.parse(buf.slice(0, nl)) as Line);
        buf = buf.slice(nl + 1);
        nl = buf.indexOf("\n");
      }
    });
    this.proc.stderr!.on("data", (d) => {
      this.stderr += d;
    });
  }
  events(event: string): Line[] {
    return this.lines.filter((l) => l.event === event);
  }
  /** Leader now: acquired more often than it lost leadership. */
  get leading(): boolean {
    return this.events("acquired").length > this.events("aborted").length;
  }
  get backendPid(): number {
    return this.events("ready")[0]!.backendPid;
  }
  kill(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode) return Promise.resolve();
    const exited = new Promise<void>((r) => this.proc.once("exit", () => r()));
    this.proc.kill("SIGKILL");
    return exited;
  }
}

describe.skipIf(postgresMissing)("leadership across separate processes", () => {
  const pg = usePostgres(() => {
    if (!existsSync(dist)) throw new Error(`${dist} is missing: run \`pnpm build\` before the tests`);
  });

  it("one of three processes leads; SIGKILL the leader and another takes over within 5 s, twice", async () => {
    const name = "telegram:support-bot";
    const instances = [0, 1, 2].map(() => new Instance(pg.url, name));
    const describeAll = () =>
      instances.map((i) => `pid ${i.proc.pid}: ${JSON.stringify(i.lines)} ${i.stderr}`).join("\n");
    try {
      await waitFor(
        "three ready instances",
        () => instances.every((i) => i.events("ready").length === 1),
        15_000,
      ).catch((e) => {
        throw new Error(`${e.message}\n${describeAll()}`);
      });
      await waitFor("a leader", () => instances.some((i) => i.leading), 5_000);
      // Several retry rounds: still exactly one.
      await sleep(RETRY_MS * 5);
      let alive = instances;
      const takeovers: number[] = [];
      for (let round = 0; round < 2; round++) {
        const leaders = alive.filter((i) => i.leading);
        expect(leaders, describeAll()).toHaveLength(1);
        const holder = leaders[0]!;
        expect(await lockHolders(pg.mon, leaderLockName(name))).toEqual([holder.backendPid]);

        const killedAt = Date.now();
        await holder.kill();
        alive = alive.filter((i) => i !== holder);
        const next = await waitFor("a new leader", () => alive.find((i) => i.leading), TAKEOVER_BOUND_MS);
        const acquiredAt = next.events("acquired").at(-1)!.t;
        takeovers.push(acquiredAt - killedAt);
        // Not before the kill (no overlap), and within the bound.
        expect(acquiredAt).toBeGreaterThanOrEqual(killedAt);
        expect(acquiredAt - killedAt).toBeLessThan(TAKEOVER_BOUND_MS);

        // The killed process's session (and with it its lock) is gone; the new leader holds the lock.
        const gone = await pg.mon.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [holder.backendPid]);
        expect(gone.rowCount).toBe(0);
        expect(await lockHolders(pg.mon, leaderLockName(name))).toEqual([next.backendPid]);
        await sleep(RETRY_MS * 5);
        expect(
          alive.filter((i) => i.leading),
          describeAll(),
        ).toEqual([next]);
      }
      console.log(`leadership takeover after SIGKILL: ${takeovers.map((t) => `${t} ms`).join(", ")}`);
      // Nobody but the leaders ever acquired; nobody saw a spurious loss.
      expect(instances.flatMap((i) => i.events("lost"))).toEqual([]);
      expect(
        instances.flatMap((i) => i.events("error")),
        describeAll(),
      ).toEqual([]);
    } finally {
      await Promise.all(instances.map((i) => i.kill()));
    }
  }, 60_000);

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
