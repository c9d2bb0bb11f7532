// What a statement on another connection needs to ask whether a session other than this link's
// holds a thread's lock (ThreadLocks.lockOf: the inbox INSERT announcing its record to the thread's
// holder, chat-store's pg-accept-announce.test, #45.3): the link's pid and the key as pg_locks shows them.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { ThreadLocks, threadKey } from "../src/index.js";
import { monitor, usePostgres } from "./helpers.js";

describe.skipIf(postgresMissing)("ThreadLocks.lockOf", () => {
  const pg = usePostgres();

  it("names the link's backend pid and the thread lock's key as pg_locks shows a lock taken on it; undefined once the link is closed", async () => {
    const link = await pg.link({ healthCheckMs: 0 });
    const mon = await monitor(pg.url);
    try {
      const locks = new ThreadLocks(link);
      const key = threadKey("http", "T");
      const ref = locks.lockOf(key);
      expect(ref?.pid).toBe(link.backendPid);
      expect(ref?.incarnation).toBe(link.incarnation);
      expect(await locks.tryLock(key)).toBe(true);
      // pg_locks shows a bigint key as classid (its high 32 bits) and objid (its low 32 bits).
      const unsigned = BigInt.asUintN(64, BigInt(ref?.key ?? "0"));
      const { rows } = await mon.query(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
          AND classid = $1::bigint::oid AND objid = $2::bigint::oid`,
        [(unsigned >> 32n).toString(), (unsigned & 0xffffffffn).toString()],
      );
      expect(rows.map((r) => Number(r.pid))).toEqual([ref?.pid]);
      await link.close();
      expect(locks.lockOf(key)).toBeUndefined();
    } finally {
      await mon.end();
    }
  });
});
