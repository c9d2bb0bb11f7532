// Who holds the thread's lock, as an announcing inbox accept on PostgreSQL asks the lock manager
// (pg-writes.ts): a session holding it exclusively, as instances hold their threads (not one holding
// it shared), among hundreds of keys held, keys of either sign. Kept beside the accept's SQL for any
// rewrite of its lock question (#45.2: pg_locks read three ways; #45.3: a shared try instead).
import type { RunOrigin } from "@agentsvc/agent-core";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import { useAnnounceRig } from "./pg-announce-rig.js";

const CHANNEL = "announce_holders_test";
const rig = useAnnounceRig(CHANNEL);
const origin: RunOrigin = { gateway: "g", thread: "t", meta: {} };
const PAYLOAD = '{"kind":"thread","gateway":"g","thread":"t"}';

const accept = (db: ChatDb, dedupKey: string, pid: number, key: string, thread = "t") =>
  db.inbox.accept(
    { gateway: "g", dedupKey, thread, text: `text ${dedupKey}`, origin },
    { announce: { lock: { pid, key }, channel: CHANNEL, payload: PAYLOAD } },
  );

describe.skipIf(postgresMissing)("[postgres] an announcing inbox accept's lock holders", () => {
  it("is announced when a session holds the thread's lock exclusively, not while sessions hold it only shared", async () => {
    const { db, link, holder, settled } = await rig();
    const key = "7355620";
    await link.client.query("SELECT pg_advisory_lock_shared($1::bigint)", [key]);
    await holder.client.query("SELECT pg_advisory_lock_shared($1::bigint)", [key]);
    expect(await accept(db, "m1", link.pid, key)).toEqual({ accepted: true, id: expect.any(Number) });
    await link.client.query("SELECT pg_advisory_unlock_shared($1::bigint)", [key]);
    await holder.client.query("SELECT pg_advisory_unlock_shared($1::bigint)", [key]);
    await holder.client.query("SELECT pg_advisory_lock($1::bigint)", [key]);
    const second = await accept(db, "m2", link.pid, key);
    expect(second).toEqual({ accepted: true, id: expect.any(Number), announced: true });
    expect((await settled()).map((p) => (JSON.parse(p) as { id: number }).id)).toEqual([
      (second as { id: number }).id,
    ]);
  });

  it("is announced, in grouped statements, for exactly the keys another session holds among hundreds it holds, whichever half has its top bit set", async () => {
    const { db, link, holder, settled } = await rig();
    await holder.client.query("SELECT pg_advisory_lock(k) FROM generate_series(5000000, 5000400) k");
    // objid >= 2^31, a negative key (classid >= 2^31), classid 2^31 - 1: the halves as unsigned oids.
    const held = [
      "5000200",
      `${2n ** 31n + 7n}`,
      `${-(2n ** 40n) - 3n}`,
      `${(2n ** 31n - 1n) * 2n ** 32n + 9n}`,
    ];
    const free = ["4999999", `${2n ** 31n + 8n}`, `${-(2n ** 40n) - 4n}`, `${5n * 2n ** 32n}`];
    for (const key of held.slice(1)) await holder.client.query("SELECT pg_advisory_lock($1::bigint)", [key]);
    const keys = held.flatMap((h, i) => [h, free[i] as string]);
    const results = await Promise.all(keys.map((key, i) => accept(db, `g${i}`, link.pid, key, `t${i}`)));
    expect(results.map((r) => "announced" in r)).toEqual(keys.map((k) => held.includes(k)));
    const ids = results.filter((r) => "announced" in r).map((r) => (r as { id: number }).id);
    expect((await settled()).map((p) => (JSON.parse(p) as { id: number }).id).sort()).toEqual(ids.sort());
  });

  it("is announced for a negative key held by another session", async () => {
    const { db, link, holder, settled } = await rig();
    const key = "-7355630";
    await holder.client.query("SELECT pg_advisory_lock($1::bigint)", [key]);
    expect(await accept(db, "m1", link.pid, key)).toEqual({
      accepted: true,
      id: expect.any(Number),
      announced: true,
    });
    expect(await settled()).toHaveLength(1);
  });
});
