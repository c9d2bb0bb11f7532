// A thread's lock is never counted lost while the link's session holds it, and never counted held
// when the server says it is not (#45.5: an instance logged "lost the lock of a thread" and refused
// a turn's commit while PostgreSQL saw no dropped connection). A statement of grouped lock requests
// the server refuses (here: a take finding the shared lock table full) used to fail every fence
// riding in it; a take it made before failing stayed held on the server, unknown to the link; and a
// fence the server refused left the lock counted held, so the next take answered from that count.
import { createRequire } from "node:module";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import type { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InstanceLink, ThreadLocks, threadKey, threadLockName } from "../src/index.js";
import { advisoryKey } from "../src/keys.js";
import { lockHolders, monitor, usePostgres } from "./helpers.js";

const pg = createRequire(import.meta.url)("pg") as typeof import("pg");

/** A client holding advisory locks until the server's lock table is full; `free(n)` gives n back. */
async function fillLockTable(url: string): Promise<{ free(n: number): Promise<void>; end(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let n = 0;
  for (;;) {
    const full = await client.query("SELECT pg_try_advisory_lock($1::int, 7)", [n]).then(
      () => false,
      (e: Error) => /out of shared memory/.test(e.message),
    );
    if (full) break;
    n++;
  }
  return {
    async free(count) {
      for (let i = 0; i < count; i++) await client.query("SELECT pg_advisory_unlock($1::int, 7)", [--n]);
    },
    end: () => client.end(),
  };
}

describe.skipIf(postgresMissing)("lock requests the server refuses, on a small lock table", () => {
  let server: TestPostgres;
  let url: string;
  let mon: Client;
  const links: InstanceLink[] = [];

  beforeAll(async () => {
    // About 170 advisory locks fit: a test fills the table in a moment.
    server = await startPostgres({
      maxConnections: 5,
      settings: ["max_locks_per_transaction = 10", "max_worker_processes = 0", "max_wal_senders = 0"],
    });
    url = await server.createDatabase();
    mon = await monitor(url);
  });
  afterAll(async () => {
    for (const link of links) await link.close();
    await mon?.end();
    await server?.stop();
  });

  const open = async () => {
    const link = new InstanceLink({ connectionString: url, healthCheckMs: 0 });
    links.push(link);
    await link.connect();
    return link;
  };

  it("a fence sharing a statement with a take the server refuses still finds its lock held", async () => {
    const link = await open();
    const locks = new ThreadLocks(link);
    const held = threadKey("hooks", "held");
    expect(await locks.tryLock(held)).toBe(true);
    const filler = await fillLockTable(url);
    try {
      // Asked in the same tick: one statement, whose take of `other` the server refuses.
      const [fence, take] = await Promise.allSettled([
        locks.assertHeld(held),
        locks.tryLock(threadKey("hooks", "other")),
      ]);
      expect(fence).toEqual({ status: "fulfilled", value: undefined });
      expect(take.status).toBe("rejected");
      expect(String((take as PromiseRejectedResult).reason)).toMatch(/out of shared memory/);
      expect(locks.isHeld(held)).toBe(true);
      expect(link.connected).toBe(true);
    } finally {
      await filler.end();
      await locks.unlock(held);
    }
  });

  it("a give-back sharing a statement the server refuses, which gave the lock back before failing, is answered true", async () => {
    const link = await open();
    const locks = new ThreadLocks(link);
    const given = threadKey("hooks", "given");
    expect(await locks.tryLock(given)).toBe(true);
    const filler = await fillLockTable(url);
    try {
      // One statement: the give-back frees a place the first take fills; the second take is refused.
      const [unlocked, first, second] = await Promise.allSettled([
        locks.unlock(given),
        locks.tryLock(threadKey("hooks", "fills")),
        locks.tryLock(threadKey("hooks", "refused")),
      ]);
      expect(second.status).toBe("rejected");
      expect(first).toEqual({ status: "fulfilled", value: true });
      expect(await lockHolders(mon, threadLockName(given))).toEqual([]);
      // As a statement of its own would have answered: it held the lock, and gave it back.
      expect(unlocked).toEqual({ status: "fulfilled", value: true });
    } finally {
      await filler.end();
      await locks.unlock(threadKey("hooks", "fills"));
    }
  });

  it("a statement of takes that fails part-way leaves no lock on the server the link does not count", async () => {
    const link = await open();
    const locks = new ThreadLocks(link);
    const filler = await fillLockTable(url);
    try {
      await filler.free(3);
      const keys = Array.from({ length: 6 }, (_, i) => threadKey("hooks", `burst${i}`));
      const answers = await Promise.allSettled(keys.map((key) => locks.tryLock(key)));
      // Three fit: those takes are answered true, the others refused.
      expect(answers.filter((a) => a.status === "fulfilled" && a.value === true)).toHaveLength(3);
      expect(answers.filter((a) => a.status === "rejected")).toHaveLength(3);
      for (const key of keys) {
        const onServer = (await lockHolders(mon, threadLockName(key))).includes(link.backendPid as number);
        expect(locks.isHeld(key), key).toBe(onServer);
      }
    } finally {
      await filler.end();
    }
  });
});

describe.skipIf(postgresMissing)("a lock the server says this session does not hold", () => {
  const server = usePostgres();

  it("after a refused fence the lock no longer counts as held: the next take asks the server and holds it", async () => {
    const link = await server.link({ healthCheckMs: 0 });
    const locks = new ThreadLocks(link);
    const key = threadKey("hooks", "t1");
    expect(await locks.tryLock(key)).toBe(true);
    // Given back on the session behind the link's back (the connection stays up).
    await link.query("SELECT pg_advisory_unlock($1::bigint)", [advisoryKey(threadLockName(key)).toString()]);
    await expect(locks.assertHeld(key)).rejects.toThrow(/no longer holds its lock/);
    expect(locks.isHeld(key)).toBe(false);
    expect(await locks.tryLock(key)).toBe(true);
    await locks.assertHeld(key);
    expect(await lockHolders(server.mon, threadLockName(key))).toEqual([link.backendPid]);
  });

  it("a thread locked in another database of the same server is not busy in this one", async () => {
    await server.mon.query("CREATE DATABASE other_deployment");
    const otherUrl = new URL(server.url);
    otherUrl.pathname = "/other_deployment";
    const elsewhere = await server.link({ connectionString: otherUrl.href, healthCheckMs: 0 });
    const here = await server.link({ healthCheckMs: 0 });
    const key = threadKey("telegram", "42");
    expect(await new ThreadLocks(elsewhere).tryLock(key)).toBe(true);
    expect(await new ThreadLocks(here).heldAnywhere(key)).toBe(false);
    // Advisory locks are per database: this one takes it too.
    expect(await new ThreadLocks(here).tryLock(key)).toBe(true);
    expect(await new ThreadLocks(elsewhere).heldAnywhere(key)).toBe(true);
  });
});
