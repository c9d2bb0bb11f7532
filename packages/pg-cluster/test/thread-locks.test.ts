import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { type LinkLost, ThreadLockLostError, ThreadLocks, threadKey, threadLockName } from "../src/index.js";
import { lockHolders, terminate, usePostgres, waitFor } from "./helpers.js";

describe.skipIf(postgresMissing)("thread locks on two links (two instances) over one PostgreSQL", () => {
  const pg = usePostgres();

  const open = () => pg.link({ reconnectMinMs: 50, reconnectMaxMs: 500 });

  it("one link wins a thread key; after unlock the other wins; a terminated holder frees it and hears lost", async () => {
    const a = await open();
    const b = await open();
    const la = new ThreadLocks(a);
    const lb = new ThreadLocks(b);
    const key = threadKey("telegram", "chat:42");
    const name = threadLockName(key);

    expect(await la.tryLock(key)).toBe(true);
    expect(await lb.tryLock(key)).toBe(false);
    // Not re-entrant: a second turn on the same instance waits too.
    expect(await la.tryLock(key)).toBe(false);
    expect(await lockHolders(pg.mon, name)).toEqual([a.backendPid]);
    // Another thread is independent.
    expect(await lb.tryLock(threadKey("telegram", "chat:43"))).toBe(true);

    expect(await la.unlock(key)).toBe(true);
    expect(await la.unlock(key)).toBe(false);
    expect(await lb.tryLock(key)).toBe(true);
    expect(await la.tryLock(key)).toBe(false);
    expect(await lockHolders(pg.mon, name)).toEqual([b.backendPid]);

    // The winner's connection is terminated from a third connection: the server releases the lock
    // with the session, and the winner is told (per lock, per ThreadLocks, per link).
    const perLock: string[] = [];
    expect(await lb.unlock(key)).toBe(true);
    expect(await lb.tryLock(key, { onLost: () => perLock.push(key) })).toBe(true);
    const lostKeys: string[][] = [];
    lb.onLost((keys) => lostKeys.push(keys));
    const linkLost: LinkLost[] = [];
    b.onLost((l) => linkLost.push(l));
    const bPid = b.backendPid!;
    await terminate(pg.mon, bPid);

    await waitFor("b's lost callback", () => perLock.length > 0, 5_000);
    expect(perLock).toEqual([key]);
    expect(lostKeys.map((k) => [...k].sort())).toEqual([[key, threadKey("telegram", "chat:43")].sort()]);
    expect(linkLost).toHaveLength(1);
    expect(linkLost[0]!.generation).toBe(1);
    expect(lb.isHeld(key)).toBe(false);
    expect(await lockHolders(pg.mon, name)).toEqual([]);
    expect(await la.tryLock(key)).toBe(true);
    expect(await lockHolders(pg.mon, name)).toEqual([a.backendPid]);

    // b reconnects by itself (a new session) and contends like anyone else.
    await waitFor("b reconnected", () => b.connected && b.generation === 2, 5_000);
    expect(b.backendPid).not.toBe(bPid);
    expect(await lb.tryLock(key)).toBe(false);
    expect(await lb.unlock(key)).toBe(false);
    expect(await la.unlock(key)).toBe(true);
    expect(await lb.tryLock(key)).toBe(true);
  });

  it("assertHeld asks the server: it passes for the holder, and fails after unlock or once the holder's session is gone", async () => {
    const a = await open();
    const b = await open();
    const la = new ThreadLocks(a);
    const lb = new ThreadLocks(b);
    const key = threadKey("slack", "C1:1700000000.1");
    expect(await la.tryLock(key)).toBe(true);
    await la.assertHeld(key);
    await expect(lb.assertHeld(key)).rejects.toThrow(ThreadLockLostError);
    expect(await la.unlock(key)).toBe(true);
    await expect(la.assertHeld(key)).rejects.toThrow(ThreadLockLostError);
    expect(await lb.tryLock(key)).toBe(true);
    await lb.assertHeld(key);
    // Given back behind this process's back (same session): the server's answer is what counts.
    await b.query("SELECT pg_advisory_unlock_all()");
    await expect(lb.assertHeld(key)).rejects.toThrow(ThreadLockLostError);
    expect(await la.tryLock(key)).toBe(true);
    await terminate(pg.mon, a.backendPid!);
    // Whether or not the link has noticed the drop yet, the lock is not held.
    await expect(la.assertHeld(key)).rejects.toThrow(ThreadLockLostError);
  });

  it("heldLock names the holder's session (pid, incarnation) and the lock's key as pg_locks shows them, and refuses a lock this instance does not hold", async () => {
    const a = await open();
    const b = await open();
    const la = new ThreadLocks(a);
    const lb = new ThreadLocks(b);
    // Keys whose bigint is negative and positive: both halves read as pg_locks stores them (unsigned oids).
    const keys = [threadKey("whatsapp", "t1"), threadKey("whatsapp", "t2"), threadKey("whatsapp", "t3")];
    for (const key of keys) {
      expect(await la.tryLock(key)).toBe(true);
      const lock = la.heldLock(key);
      expect(lock.pid).toBe(a.backendPid);
      expect(lock.incarnation).toBe(a.incarnation);
      const { rows } = await pg.mon.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
          AND classid = (($1::bigint >> 32) & 4294967295)::oid AND objid = ($1::bigint & 4294967295)::oid`,
        [lock.key],
      );
      expect(rows.map((r) => r.pid)).toEqual(await lockHolders(pg.mon, threadLockName(key)));
      expect(rows.map((r) => r.pid)).toEqual([a.backendPid]);
      expect(() => lb.heldLock(key)).toThrow(new ThreadLockLostError(key));
    }
    expect(new Set(keys.map((key) => BigInt(la.heldLock(key).key) < 0n)).size).toBe(2);
    expect(await la.unlock(keys[0]!)).toBe(true);
    expect(() => la.heldLock(keys[0]!)).toThrow(ThreadLockLostError);
    await a.close();
    expect(() => la.heldLock(keys[1]!)).toThrow(ThreadLockLostError);
  });

  it("heldAnywhere asks the server whether any session holds the key: the holder's, another's, and no longer once given back or gone with its session", async () => {
    const a = await open();
    const b = await open();
    const la = new ThreadLocks(a);
    const lb = new ThreadLocks(b);
    const key = threadKey("http", "t1");
    const other = threadKey("http", "t2");
    expect(await lb.heldAnywhere(key)).toBe(false);
    expect(await la.tryLock(key)).toBe(true);
    // Asked together (one statement): each key answered for itself.
    expect(await Promise.all([lb.heldAnywhere(key), la.heldAnywhere(key), lb.heldAnywhere(other)])).toEqual([
      true,
      true,
      false,
    ]);
    expect(await la.unlock(key)).toBe(true);
    expect(await lb.heldAnywhere(key)).toBe(false);
    expect(await la.tryLock(key)).toBe(true);
    await terminate(pg.mon, a.backendPid!);
    await waitFor("a's session ended", async () => !(await lb.heldAnywhere(key)), 5_000);
    expect(await lb.tryLock(key)).toBe(true);
  });

  it("concurrent tries of one key on one link: exactly one wins", async () => {
    const a = await open();
    const la = new ThreadLocks(a);
    const key = threadKey("discord", "guild:1:channel:2");
    const results = await Promise.all([la.tryLock(key), la.tryLock(key), la.tryLock(key)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await la.unlock(key)).toBe(true);
    // Released once is released: PostgreSQL's lock count was 1.
    expect(await lockHolders(pg.mon, threadLockName(key))).toEqual([]);
  });

  it("keys are namespaced and validated", () => {
    expect(threadLockName(threadKey("github", "repo:o/r:issue:12"))).toBe(
      "agentsvc:thread:github:repo:o/r:issue:12",
    );
    expect(() => threadKey("a:b", "c")).toThrow(/gateway must be non-empty and without ":"/);
    expect(() => threadKey("a", "")).toThrow(/thread must not be empty/);
  });
});
