// An announcing inbox accept on PostgreSQL reads the server's locks once a statement and matches its
// rows to them by hash, whatever its rows: a per-row subquery over pg_locks filtered every lock of the
// server again for each row (500 locks, 12 rows: 6,000 tests of computed key halves) (#45.2).
import type { RunOrigin } from "@agentsvc/agent-core";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { AcceptRow } from "../src/accept-batch.js";
import type { ChatDb } from "../src/index.js";
import { inboxAccept } from "../src/pg-writes.js";
import { useAnnounceRig } from "./pg-announce-rig.js";

const CHANNEL = "announce_scan_test";
const rig = useAnnounceRig(CHANNEL);
const origin: RunOrigin = { gateway: "g", thread: "t", meta: {} };
const PAYLOAD = '{"kind":"thread","gateway":"g","thread":"t"}';

interface PlanNode {
  "Function Name"?: string;
  "Actual Loops"?: number;
  Plans?: PlanNode[];
}

/** Runs of every pg_lock_status scan in the plan (a scan read again for each outer row counts each). */
function lockScans(node: PlanNode): number {
  const own = node["Function Name"] === "pg_lock_status" ? (node["Actual Loops"] ?? 0) : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + lockScans(child), 0);
}

const accept = (db: ChatDb, dedupKey: string, pid: number, key: string) =>
  db.inbox.accept(
    { gateway: "g", dedupKey, thread: "t", text: `text ${dedupKey}`, origin },
    { announce: { lock: { pid, key }, channel: CHANNEL, payload: PAYLOAD } },
  );

describe.skipIf(postgresMissing)("[postgres] an announcing inbox accept's lock read", () => {
  it("reads pg_locks' rows once for a statement of several announcing rows, not again for each row", async () => {
    const { link, holder } = await rig();
    await holder.client.query("SELECT pg_advisory_lock(7355611)");
    const rows: AcceptRow[] = ["m1", "m2", "m3", "m4"].map((dedupKey, i) => ({
      gateway: "g",
      dedupKey,
      thread: `t${i}`,
      text: `text ${dedupKey}`,
      origin: "{}",
      status: "queued",
      receivedAt: Date.now(),
      attachments: null,
      announce: { lock: { pid: link.pid, key: String(7355610 + i) }, channel: CHANNEL, payload: PAYLOAD },
    }));
    const q = inboxAccept(rows);
    const explained = await link.client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${q.text}`, q.params);
    const plan = (explained.rows[0] as { "QUERY PLAN": { Plan: PlanNode }[] })["QUERY PLAN"][0]!.Plan;
    expect(lockScans(plan)).toBe(1);
  });

  it("is announced when the recorder's session and another both hold the thread's lock (shared), not when the recorder alone does", async () => {
    const { db, link, holder, settled } = await rig();
    const key = "7355620";
    await link.client.query("SELECT pg_advisory_lock_shared($1::bigint)", [key]);
    expect(await accept(db, "m1", link.pid, key)).toEqual({ accepted: true, id: expect.any(Number) });
    await holder.client.query("SELECT pg_advisory_lock_shared($1::bigint)", [key]);
    const second = await accept(db, "m2", link.pid, key);
    expect(second).toEqual({ accepted: true, id: expect.any(Number), announced: true });
    expect((await settled()).map((p) => (JSON.parse(p) as { id: number }).id)).toEqual([
      (second as { id: number }).id,
    ]);
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
