// A link session's incarnation (incarnation.ts): a lock on a random two-int4 key the session takes as
// it connects and holds until it ends, so a statement on another connection asks the lock manager,
// in O(1), whether that very session is alive (chat-store's fences, #45.3). And the lock statement's
// `busy` row asking the lock manager before pg_locks.
import { postgresMissing } from "@agentsvc/pg-test";
import type { Client } from "pg";
import { describe, expect, it } from "vitest";
import { incarnationHalves } from "../src/incarnation.js";
import { ThreadLocks, threadKey } from "../src/index.js";
import { advisoryKeyText } from "../src/keys.js";
import { lockHolders, terminate, usePostgres, waitFor } from "./helpers.js";

/** Backend pids holding the incarnation lock `key` in pg_locks (two int4 keys: objsubid 2). */
async function incarnationHolders(mon: Client, key: string): Promise<number[]> {
  const [hi, lo] = incarnationHalves(key);
  const { rows } = await mon.query<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
      AND classid = ($1::int::int8 & 4294967295)::oid AND objid = ($2::int::int8 & 4294967295)::oid`,
    [hi, lo],
  );
  return rows.map((r) => r.pid);
}

/** What a fence on another connection asks: is the incarnation's lock held (exclusively) by some session? */
async function alive(mon: Client, key: string): Promise<boolean> {
  const { rows } = await mon.query<{ alive: boolean }>(
    "SELECT NOT pg_try_advisory_xact_lock_shared(($1::bigint >> 32)::int, (($1::bigint << 32) >> 32)::int) AS alive",
    [key],
  );
  return rows[0]!.alive;
}

describe.skipIf(postgresMissing)("a link session's incarnation", () => {
  const pg = usePostgres();

  it("is a lock the session holds from its connect, on a key of its own; none before connect nor after close", async () => {
    const link = await pg.link({ healthCheckMs: 0 });
    const other = await pg.link({ healthCheckMs: 0 });
    const key = link.incarnation!;
    expect(key).toMatch(/^-?\d+$/);
    expect(other.incarnation).not.toBe(key);
    expect(await incarnationHolders(pg.mon, key)).toEqual([link.backendPid]);
    expect(await alive(pg.mon, key)).toBe(true);
    await link.close();
    expect(link.incarnation).toBeUndefined();
    await waitFor("its session ended", async () => !(await alive(pg.mon, key)), 5_000);
    expect(await incarnationHolders(pg.mon, key)).toEqual([]);
  });

  it("is new after a reconnect: the session before's is free, the new one held", async () => {
    const link = await pg.link({ healthCheckMs: 0, reconnectMinMs: 20, reconnectMaxMs: 50 });
    const before = link.incarnation!;
    const pid = link.backendPid!;
    await terminate(pg.mon, pid);
    await waitFor("reconnected", () => link.connected && link.backendPid !== pid, 5_000);
    const after = link.incarnation!;
    expect(after).not.toBe(before);
    expect([await alive(pg.mon, before), await alive(pg.mon, after)]).toEqual([false, true]);
  });

  it("has halves that are the key's high and low 32 bits, each signed, as the fences' SQL splits it", async () => {
    for (const key of ["-1", "4294967295", "-9223372036854775808", "9223372036854775807", "2147483648"]) {
      const { rows } = await pg.mon.query<{ hi: number; lo: number }>(
        "SELECT ($1::bigint >> 32)::int AS hi, (($1::bigint << 32) >> 32)::int AS lo",
        [key],
      );
      expect([rows[0]!.hi, rows[0]!.lo], key).toEqual(incarnationHalves(key));
    }
  });
});

describe.skipIf(postgresMissing)("heldAnywhere (the lock statement's busy row)", () => {
  const pg = usePostgres();

  it("is true for a key held exclusively elsewhere or by this link, false for a free key and for one held only shared, and leaves no lock behind", async () => {
    const a = await pg.link({ healthCheckMs: 0 });
    const b = await pg.link({ healthCheckMs: 0 });
    const la = new ThreadLocks(a);
    const lb = new ThreadLocks(b);
    const [elsewhere, mine, free, shared] = ["e", "m", "f", "s"].map((t) => threadKey("http", t)) as [
      string,
      string,
      string,
      string,
    ];
    expect(await la.tryLock(elsewhere)).toBe(true);
    expect(await lb.tryLock(mine)).toBe(true);
    await pg.mon.query("SELECT pg_advisory_lock_shared($1::bigint)", [
      advisoryKeyText(`agentsvc:thread:${shared}`),
    ]);
    const answers = await Promise.all([elsewhere, mine, free, shared].map((k) => lb.heldAnywhere(k)));
    expect(answers).toEqual([true, true, false, false]);
    // The shared tries went with the statement: a take of the free key elsewhere succeeds.
    expect(await la.tryLock(free)).toBe(true);
    expect(await lockHolders(pg.mon, `agentsvc:thread:${free}`)).toEqual([a.backendPid]);
  });
});
