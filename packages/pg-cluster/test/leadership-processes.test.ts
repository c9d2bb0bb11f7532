// Instances as separate processes (test/fixtures/leader.mjs over the built package): SIGKILL a
// leader and another process takes over. Needs `pnpm build` first; it tests dist, not src.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { leaderLockName } from "../src/index.js";
import { lockHolders, sleep, usePostgres, waitFor } from "./helpers.js";

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
});
