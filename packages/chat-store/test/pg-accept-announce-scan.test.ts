// An announcing inbox accept on PostgreSQL reads the server's locks once a statement, whatever its rows:
// pg_lock_status() copies every lock of the server under all its lock partitions (every other
// backend's lock requests wait meanwhile), and as a per-row subquery it ran once a row (#45.2).
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { AcceptRow } from "../src/accept-batch.js";
import { inboxAccept } from "../src/pg-writes.js";
import { useAnnounceRig } from "./pg-announce-rig.js";

const CHANNEL = "announce_scan_test";
const rig = useAnnounceRig(CHANNEL);

interface PlanNode {
  "Function Name"?: string;
  "Actual Loops"?: number;
  Plans?: PlanNode[];
}

/** Loops of every pg_lock_status scan in the plan (a node run again per outer row counts each run). */
function lockScans(node: PlanNode): number {
  const own = node["Function Name"] === "pg_lock_status" ? (node["Actual Loops"] ?? 0) : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + lockScans(child), 0);
}

describe.skipIf(postgresMissing)("[postgres] an announcing inbox accept's lock read", () => {
  it("reads pg_locks once for a statement of several announcing rows", async () => {
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
      announce: { lock: { pid: link.pid, key: String(7355610 + i) }, channel: CHANNEL, payload: "{}" },
    }));
    const q = inboxAccept(rows);
    const explained = await link.client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${q.text}`, q.params);
    const plan = (explained.rows[0] as { "QUERY PLAN": { Plan: PlanNode }[] })["QUERY PLAN"][0]!.Plan;
    expect(lockScans(plan)).toBe(1);
  });
});
