// Who holds the thread's lock, as an announcing inbox accept on PostgreSQL reads pg_locks: any session
// other than the recorder's, also beside the recorder's (a shared lock), and keys of either sign (the
// advisory key's halves in classid/objid). Kept beside the accept's SQL for any rewrite of its lock
// read (#45.2: two rewrites measured, none kept).
import type { RunOrigin } from "@agentsvc/agent-core";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import { useAnnounceRig } from "./pg-announce-rig.js";

const CHANNEL = "announce_holders_test";
const rig = useAnnounceRig(CHANNEL);
const origin: RunOrigin = { gateway: "g", thread: "t", meta: {} };
const PAYLOAD = '{"kind":"thread","gateway":"g","thread":"t"}';

const accept = (db: ChatDb, dedupKey: string, pid: number, key: string) =>
  db.inbox.accept(
    { gateway: "g", dedupKey, thread: "t", text: `text ${dedupKey}`, origin },
    { announce: { lock: { pid, key }, channel: CHANNEL, payload: PAYLOAD } },
  );

describe.skipIf(postgresMissing)("[postgres] an announcing inbox accept's lock holders", () => {
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
