// Inbox accepts grouped into one statement on PostgreSQL where only some records carry an announcement
// to their thread's holder (pg-writes.ts inboxAccept, #45.3): a record recorded on an instance that
// holds its thread (no announcement) shares the statement with one recorded elsewhere (announced).
// The announced one must still reach its holder; and a group with no announcement at all stays the
// plain INSERT, with no lock question and no NOTIFY in it.
import type { RunOrigin } from "@agentsvc/agent-core";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import { useAnnounceRig } from "./pg-announce-rig.js";
import { statementsOf } from "./pg-statements.js";

const KEY = "7355611";
const CHANNEL = "announce_mixed_test";
const PAYLOAD = '{"kind":"thread","gateway":"g","thread":"held","held":true,"target":"g:held"}';

const announceRig = useAnnounceRig(CHANNEL);

/** The store's inbox accepts: the plain INSERT, or the call of the announcing one (store-schema step 23). */
const isAccept = (text: string) =>
  text.includes('INSERT INTO "inbox"') || text.includes("inbox_accept_announcing(");

/** The rig, with the holder's session holding KEY. */
async function rig() {
  const r = await announceRig();
  await r.holder.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
  return r;
}

const origin = (thread: string): RunOrigin => ({ gateway: "g", thread, meta: {} });
const plain = (db: ChatDb, dedupKey: string, thread: string) =>
  db.inbox.accept({ gateway: "g", dedupKey, thread, text: `text ${dedupKey}`, origin: origin(thread) });
const announced = (db: ChatDb, dedupKey: string, pid: number) =>
  db.inbox.accept(
    { gateway: "g", dedupKey, thread: "held", text: `text ${dedupKey}`, origin: origin("held") },
    { announce: { lock: { pid, key: KEY }, channel: CHANNEL, payload: PAYLOAD } },
  );

describe.skipIf(postgresMissing)("[postgres] grouped inbox accepts, some with an announcement", () => {
  it("announces the records that carry one, whatever their place in the group, and answers the others accepted only", async () => {
    const { db, link, settled } = await rig();
    // Made in one tick: one statement for the four (not refused, then run again row by row).
    let results: Awaited<ReturnType<typeof plain>>[] = [];
    const sent = await statementsOf(async () => {
      results = await Promise.all([
        plain(db, "m1", "here"),
        announced(db, "m2", link.pid),
        plain(db, "m3", "here"),
        announced(db, "m4", link.pid),
      ]);
    });
    expect(sent.filter((s) => isAccept(s.text))).toHaveLength(1);
    expect(results).toEqual([
      { accepted: true, id: expect.any(Number) },
      { accepted: true, id: expect.any(Number), announced: true },
      { accepted: true, id: expect.any(Number) },
      { accepted: true, id: expect.any(Number), announced: true },
    ]);
    const ids = results.map((r) => (r as { id: number }).id);
    const heard = (await settled()).map((p) => (JSON.parse(p) as { id: number }).id);
    expect(heard).toEqual([ids[1], ids[3]]);
  });

  it("a group with announcements asks the lock manager, not pg_locks, and holds no lock once it committed", async () => {
    const { db, link, settled } = await rig();
    const sent = await statementsOf(() =>
      Promise.all(["m1", "m2", "m3", "m4"].map((k) => announced(db, k, link.pid))),
    );
    const insert = sent.find((s) => isAccept(s.text));
    expect(insert?.text).toContain("inbox_accept_announcing(");
    // The statement it calls asks the lock manager per key, never pg_locks.
    const [{ def }] = (
      await link.client.query("SELECT pg_get_functiondef('inbox_accept_announcing'::regproc) AS def")
    ).rows as [{ def: string }];
    expect(def).toContain("pg_try_advisory_xact_lock_shared(lock_keys[ins.p])");
    expect(def).not.toMatch(/pg_locks|pg_lock_status/);
    expect(await settled()).toHaveLength(4);
    // The same statement again with its records gone (stored, they would conflict and ask nothing), undone.
    await link.client.query("BEGIN");
    await link.client.query("DELETE FROM inbox");
    const { rows } = await link.client.query(insert!.text, insert!.values);
    // The key is held exclusively by the holder: the shared tries failed, nothing is held by them.
    const held = await link.client.query(
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()",
    );
    await link.client.query("ROLLBACK");
    expect(held.rows[0]?.n).toBe(0);
    expect(rows.map((r) => r.announced)).toEqual([true, true, true, true]);
  });

  it("a group with no announcement is the plain INSERT: no lock question, no NOTIFY", async () => {
    const { db, settled } = await rig();
    const sent = await statementsOf(() => Promise.all([plain(db, "m1", "held"), plain(db, "m2", "here")]));
    const inserts = sent.filter((s) => s.text.includes('INSERT INTO "inbox"'));
    expect(inserts).toHaveLength(1);
    expect(inserts[0]?.text).not.toMatch(/pg_locks|pg_try_advisory|pg_notify/);
    expect(await settled()).toEqual([]);
  });
});
