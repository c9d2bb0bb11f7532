// An inbox accept on PostgreSQL that announces its record to the thread's holder (several instances,
// #45.3): the INSERT itself sends the NOTIFY, with the record's id, when a session holds the thread's
// advisory lock exclusively (asked of the lock manager); the recorder then needs no lock statement of
// its own to announce it.
import type { RunOrigin } from "@agentsvc/agent-core";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import { useAnnounceRig } from "./pg-announce-rig.js";

const origin: RunOrigin = { gateway: "g", thread: "t", meta: {} };
const KEY = "7355609";
const CHANNEL = "announce_test";
const PAYLOAD = '{"kind":"thread","gateway":"g","thread":"t","held":true,"target":"g:t"}';

const rig = useAnnounceRig(CHANNEL);

const accept = (db: ChatDb, dedupKey: string, pid: number) =>
  db.inbox.accept(
    { gateway: "g", dedupKey, thread: "t", text: `text ${dedupKey}`, origin },
    { announce: { lock: { pid, key: KEY }, channel: CHANNEL, payload: PAYLOAD } },
  );

describe.skipIf(postgresMissing)("[postgres] an inbox accept with an announcement", () => {
  it("is announced by its INSERT when another session holds the thread's lock: one NOTIFY carrying the record's id, answered announced", async () => {
    const { db, link, holder, settled } = await rig();
    await holder.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    const result = await accept(db, "m1", link.pid);
    expect(result).toEqual({ accepted: true, id: expect.any(Number), announced: true });
    const id = (result as { id: number }).id;
    // The record itself, and no older queued record of the thread to take first.
    const record = { text: "text m1", origin, attachments: null };
    expect((await settled()).map((p) => JSON.parse(p))).toEqual([
      { ...JSON.parse(PAYLOAD), id, record, prior: [] },
    ]);
    // Committed when announced: the holder reads it.
    expect((await db.inbox.queued("g", "t")).map((r) => r.id)).toEqual([id]);
  });

  it("announces each record of a grouped INSERT with its own id, and a repeat of a stored key not at all", async () => {
    const { db, link, holder, settled } = await rig();
    await holder.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    await accept(db, "m0", link.pid);
    // Made in one tick: one INSERT for the three.
    const results = await Promise.all([
      accept(db, "m1", link.pid),
      accept(db, "m0", link.pid),
      accept(db, "m2", link.pid),
    ]);
    expect(results).toEqual([
      { accepted: true, id: expect.any(Number), announced: true },
      { accepted: false, duplicate: true },
      { accepted: true, id: expect.any(Number), announced: true },
    ]);
    const ids = (await settled()).map((p) => (JSON.parse(p) as { id: number }).id);
    expect(ids.slice(1)).toEqual(results.filter((r) => r.accepted).map((r) => (r as { id: number }).id));
  });

  it("carries the thread's queued records older than it as prior, and leaves the record out of a payload that would reach 8000 bytes", async () => {
    const { db, link, holder, settled } = await rig();
    const first = (await accept(db, "m1", link.pid)) as { id: number };
    const second = (await accept(db, "m2", link.pid)) as { id: number };
    await db.inbox.markRunning(first.id);
    await holder.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    const third = (await accept(db, "m3", link.pid)) as { id: number };
    const big = await db.inbox.accept(
      { gateway: "g", dedupKey: "m4", thread: "t", text: "x".repeat(8000), origin },
      { announce: { lock: { pid: link.pid, key: KEY }, channel: CHANNEL, payload: PAYLOAD } },
    );
    expect(big).toEqual({ accepted: true, id: expect.any(Number), announced: true });
    const heard = (await settled()).map(
      (p) => JSON.parse(p) as { id: number; prior?: number[]; record?: unknown },
    );
    // The running record is not prior: only queued ones, oldest first.
    expect(heard[0]).toMatchObject({ id: third.id, prior: [second.id] });
    expect(heard[1]).toEqual({ ...JSON.parse(PAYLOAD), id: (big as { id: number }).id });
  });

  it("is not announced when no session holds the thread's lock, and leaves it free once committed: a take after it succeeds", async () => {
    const { db, link, holder, settled } = await rig();
    expect(await accept(db, "m1", link.pid)).toEqual({ accepted: true, id: expect.any(Number) });
    expect(await settled()).toEqual([]);
    // The statement's shared try held the key only until it committed.
    const { rows } = await holder.client.query("SELECT pg_try_advisory_lock($1::bigint) AS ok", [KEY]);
    expect(rows[0]?.ok).toBe(true);
  });

  it("is announced when the recorder's own link session holds the lock (its take answered after the recording was prepared): its own link hears it", async () => {
    const { db, link, settled } = await rig();
    await link.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    expect(await accept(db, "m1", link.pid)).toEqual({
      accepted: true,
      id: expect.any(Number),
      announced: true,
    });
    expect(await settled()).toHaveLength(1);
  });

  it("holds a free thread's key shared until its transaction commits: a take elsewhere meanwhile fails, one after succeeds", async () => {
    const { db, link, holder } = await rig();
    let during: unknown;
    await db.transaction(async () => {
      expect(await accept(db, "m1", link.pid)).toEqual({ accepted: true, id: expect.any(Number) });
      during = (await holder.client.query("SELECT pg_try_advisory_lock($1::bigint) AS ok", [KEY])).rows[0]
        ?.ok;
    });
    const after = await holder.client.query("SELECT pg_try_advisory_lock($1::bigint) AS ok", [KEY]);
    expect([during, after.rows[0]?.ok]).toEqual([false, true]);
  });
});
