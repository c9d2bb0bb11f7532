// The announcing inbox accept's payload near NOTIFY's 8000-byte limit, and its rows found by their
// place in the arrays (store-schema step 23, #45.3 pgexec12): the caller puts the record in the
// payload and says how many `prior` ids fit beside it (19 digits each reserved); the statement reads
// up to that many and leaves `prior` out when the thread has more. A record that fits is carried
// even when `prior` is not; no payload reaches 8000 bytes (pg_notify would fail the INSERT).
import type { RunOrigin } from "@agentsvc/agent-core";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import { announcePayload } from "../src/pg-writes.js";
import { useAnnounceRig } from "./pg-announce-rig.js";
import { statementsOf } from "./pg-statements.js";

const origin: RunOrigin = { gateway: "g", thread: "t", meta: {} };
const KEY = "7355621";
const OTHER_KEY = "7355622";
const CHANNEL = "announce_size_test";
const PAYLOAD = '{"kind":"thread","gateway":"g","thread":"t","held":true,"target":"g:t"}';

const rig = useAnnounceRig(CHANNEL);

const accept = (db: ChatDb, dedupKey: string, text = `text ${dedupKey}`) =>
  db.inbox.accept(
    { gateway: "g", dedupKey, thread: "t", text, origin },
    { announce: { lock: { pid: 0, key: KEY }, channel: CHANNEL, payload: PAYLOAD } },
  ) as Promise<{ id: number; announced?: true }>;

/** A text whose record leaves room beside it for exactly `ids` prior ids (of 19 digits each). */
function textFor(ids: number): string {
  for (let n = 7900; n > 7000; n--) {
    const text = "x".repeat(n);
    const row = { gateway: "g", dedupKey: "k", thread: "t", text, origin: JSON.stringify(origin) };
    const { priorCap } = announcePayload(
      { ...row, status: "queued", receivedAt: 0, attachments: null },
      PAYLOAD,
    );
    if (priorCap === ids) return text;
  }
  throw new Error(`no text leaves room for ${ids} ids`);
}

describe.skipIf(postgresMissing)("[postgres] an announcing inbox accept near NOTIFY's limit", () => {
  it("carries a record that fits with the prior ids that fit beside it, and the record alone when the thread has more older queued records than fit", async () => {
    const { db, holder, settled } = await rig();
    const first = await accept(db, "m1");
    const second = await accept(db, "m2");
    await holder.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    const text = textFor(1);
    const crowded = await accept(db, "m3", text);
    await db.inbox.markRunning(first.id);
    await db.inbox.markRunning(crowded.id);
    const roomy = await accept(db, "m4", text);
    expect([crowded.announced, roomy.announced]).toEqual([true, true]);
    const heard = await settled();
    for (const p of heard) expect(Buffer.byteLength(p, "utf8")).toBeLessThan(8000);
    const record = { text, origin, attachments: null };
    // Two older queued records (m1, m2) where one fits: the record without prior (the holder reads).
    expect(JSON.parse(heard[0]!)).toEqual({ ...JSON.parse(PAYLOAD), id: crowded.id, record });
    // One (m2; m1 and m3 run): carried.
    expect(JSON.parse(heard[1]!)).toEqual({
      ...JSON.parse(PAYLOAD),
      id: roomy.id,
      record,
      prior: [second.id],
    });
  });

  it("announces, in one statement, each of two gateways' records with the same dedup key with its own thread's payload", async () => {
    const { db, holder, settled } = await rig();
    await holder.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    await holder.client.query("SELECT pg_advisory_lock($1::bigint)", [OTHER_KEY]);
    const other = '{"kind":"thread","gateway":"h","thread":"u","held":true,"target":"h:u"}';
    let results: { id: number; announced?: true }[] = [];
    const sent = await statementsOf(async () => {
      results = (await Promise.all([
        db.inbox.accept(
          { gateway: "g", dedupKey: "same", thread: "t", text: "to g", origin },
          { announce: { lock: { pid: 0, key: KEY }, channel: CHANNEL, payload: PAYLOAD } },
        ),
        db.inbox.accept(
          {
            gateway: "h",
            dedupKey: "same",
            thread: "u",
            text: "to h",
            origin: { ...origin, gateway: "h", thread: "u" },
          },
          { announce: { lock: { pid: 0, key: OTHER_KEY }, channel: CHANNEL, payload: other } },
        ),
      ])) as { id: number; announced?: true }[];
    });
    expect(sent.filter((s) => s.text.includes("inbox_accept_announcing("))).toHaveLength(1);
    const [a, b] = results;
    expect([a?.announced, b?.announced]).toEqual([true, true]);
    const heard = (await settled()).map(
      (p) => JSON.parse(p) as { gateway: string; id: number; record: { text: string } },
    );
    expect(heard.map((h) => [h.gateway, h.id, h.record.text])).toEqual([
      ["g", a!.id, "to g"],
      ["h", b!.id, "to h"],
    ]);
  });
});
