// What ThreadLocks tells its holders when the link's connection drops, and what assertHeld says
// when the connection fails under it: the thread keys lost (never another kind of lock the link
// held), nothing when no thread was held, nothing to a listener that unsubscribed, and the
// connection's failure as the cause of the refused fence. Written from the survivors of
// `pnpm mutate pg-cluster src/thread-locks.ts` (#44).
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { type LinkLost, leaderLockName, ThreadLockLostError, ThreadLocks, threadKey } from "../src/index.js";
import { terminate, usePostgres, waitFor } from "./helpers.js";

describe.skipIf(postgresMissing)("thread locks when the link's connection drops", () => {
  const pg = usePostgres();
  const open = () => pg.link({ healthCheckMs: 0, reconnectMinMs: 50, reconnectMaxMs: 500 });

  /** Terminates the link's session and waits until the link has reported the drop. */
  async function drop(link: Awaited<ReturnType<typeof open>>): Promise<LinkLost> {
    const lost: LinkLost[] = [];
    const off = link.onLost((l) => lost.push(l));
    await terminate(pg.mon, link.backendPid!);
    const seen = await waitFor("the link's lost report", () => lost[0], 5_000);
    off();
    return seen;
  }

  it("listeners hear the thread keys lost, without the leadership locks the same link held", async () => {
    const link = await open();
    const locks = new ThreadLocks(link);
    const key = threadKey("telegram", "chat:7");
    expect(await locks.tryLock(key)).toBe(true);
    expect(await link.tryLock(leaderLockName("telegram"))).toBe(true);
    const heard: string[][] = [];
    locks.onLost((keys) => heard.push(keys));
    const lost = await drop(link);
    expect(lost.names.sort()).toEqual([leaderLockName("telegram"), "agentsvc:thread:telegram:chat:7"].sort());
    expect(heard).toEqual([[key]]);
  });

  it("a drop while no thread lock was held tells thread listeners nothing", async () => {
    const link = await open();
    const locks = new ThreadLocks(link);
    expect(await link.tryLock(leaderLockName("slack"))).toBe(true);
    const heard: string[][] = [];
    locks.onLost((keys) => heard.push(keys));
    const lost = await drop(link);
    expect(lost.names).toEqual([leaderLockName("slack")]);
    expect(heard).toEqual([]);
  });

  it("a listener that unsubscribed hears nothing; the others still do", async () => {
    const link = await open();
    const locks = new ThreadLocks(link);
    const key = threadKey("discord", "c:1");
    expect(await locks.tryLock(key)).toBe(true);
    const gone: string[][] = [];
    const kept: string[][] = [];
    const off = locks.onLost((keys) => gone.push(keys));
    locks.onLost((keys) => kept.push(keys));
    off();
    await drop(link);
    expect(kept).toEqual([[key]]);
    expect(gone).toEqual([]);
  });

  it("a fence for a lock given back is refused as ThreadLockLostError without a cause", async () => {
    const link = await open();
    const locks = new ThreadLocks(link);
    const key = threadKey("teams", "conv:1");
    expect(await locks.tryLock(key)).toBe(true);
    expect(await locks.unlock(key)).toBe(true);
    const refused = await locks.assertHeld(key).then(
      () => undefined,
      (e: unknown) => e as ThreadLockLostError,
    );
    expect(refused).toBeInstanceOf(ThreadLockLostError);
    expect(refused?.name).toBe("ThreadLockLostError");
    expect(refused?.message).toBe(`thread ${key}: this instance no longer holds its lock`);
    expect(refused !== undefined && Object.hasOwn(refused, "cause")).toBe(false);
  });

  it("a fence refused because the connection failed under it carries that failure as its cause", async () => {
    const link = await open();
    const locks = new ThreadLocks(link);
    const key = threadKey("slack", "C9:1");
    expect(await locks.tryLock(key)).toBe(true);
    // A statement the server holds (a monitor owns the advisory lock it waits for): the fence
    // queues behind it, still counted as held here, and goes to a connection that is gone.
    await pg.mon.query("SELECT pg_advisory_lock(905)");
    try {
      const stuck = link.query("SELECT pg_advisory_lock(905)").catch((e: unknown) => e);
      const fence = locks.assertHeld(key).then(
        () => undefined,
        (e: unknown) => e,
      );
      await waitFor(
        "the link's session waits for the monitor's lock",
        async () =>
          (await pg.mon.query("SELECT 1 FROM pg_locks WHERE pid = $1 AND NOT granted", [link.backendPid]))
            .rowCount === 1,
        5_000,
      );
      await terminate(pg.mon, link.backendPid!);
      expect(await stuck).toBeInstanceOf(Error);
      const refused = await fence;
      expect(refused).toBeInstanceOf(ThreadLockLostError);
      expect((refused as ThreadLockLostError).message).toBe(
        `thread ${key}: this instance no longer holds its lock`,
      );
      expect((refused as ThreadLockLostError).cause).toBeInstanceOf(Error);
    } finally {
      await pg.mon.query("SELECT pg_advisory_unlock_all()");
    }
  });
});
