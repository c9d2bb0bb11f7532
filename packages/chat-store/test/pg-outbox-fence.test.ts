// The outbox sender's fence folded into its due read (outbox-fence.ts, #45.3): pieces are read only
// while the session the fence names (an instance's cluster link, by its incarnation) holds every role
// lock it lists. An instance whose link went away unnoticed, another instance holding its roles now,
// reads nothing; nor does its next session (a reconnect) by the fence of the one before.
import { createHash } from "node:crypto";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { RoleFence } from "../src/outbox-fence.js";
import { KEYS, useFenceRig } from "./pg-fence-rig.js";

const rig = useFenceRig(["a", "b"]);

const texts = (rows: { payload: unknown }[]) => rows.map((r) => (r.payload as { text: string }).text);

/** The fence a session names for all of KEYS. */
const fenceOf = (s: { pid: number; incarnation: string }): RoleFence => ({
  pid: s.pid,
  keys: KEYS,
  incarnation: s.incarnation,
});

/**
 * A link's session holding the roles, then ended (pg_terminate_backend), the roles taken by another
 * session (another instance's, or the link's next after a reconnect): the fence the ended one named.
 */
async function rolesTakenOver() {
  const { db, session } = await rig();
  const link = await session();
  await link.lock(KEYS);
  const old = fenceOf(link);
  const next = await session();
  await link.terminate(next.client);
  await next.lock(KEYS);
  return { db, old, next };
}

describe.skipIf(postgresMissing)("[postgres] the outbox's due read with the sender's role fence", () => {
  it("reads the due pieces while the fence's session holds every role lock", async () => {
    const { db, session } = await rig();
    const link = await session();
    await link.lock(KEYS);
    const fence = fenceOf(link);
    expect(texts(await db.outbox.due(Date.now(), 32, fence))).toEqual(["a1", "b1"]);
  });

  it("refuses the read (role_not_held) when one of the role locks is free, or held only shared", async () => {
    const { db, session } = await rig();
    const link = await session();
    await link.lock([KEYS[0]!]);
    const fence = fenceOf(link);
    await expect(db.outbox.due(Date.now(), 32, fence)).rejects.toMatchObject({ code: "role_not_held" });
    const other = await session();
    await other.client.query("SELECT pg_advisory_lock_shared($1::bigint)", [KEYS[1]]);
    await expect(db.outbox.due(Date.now(), 32, fence)).rejects.toMatchObject({ code: "role_not_held" });
  });

  it("refuses the read once the session was ended (pg_terminate_backend) and another holds the roles; the new holder reads them", async () => {
    const { db, old, next: other } = await rolesTakenOver();
    await expect(db.outbox.due(Date.now(), 32, old)).rejects.toMatchObject({ code: "role_not_held" });
    expect(texts(await db.outbox.due(Date.now(), 32, fenceOf(other)))).toEqual(["a1", "b1"]);
  });

  it("refuses the read by the fence of the session before a reconnect, even with the roles taken again by the next one", async () => {
    const { db, old } = await rolesTakenOver();
    await expect(db.outbox.due(Date.now(), 32, old)).rejects.toMatchObject({ code: "role_not_held" });
  });

  it("with a share, reads only the heads of its partitions, and is still refused when a role is not held", async () => {
    const { db, session } = await rig();
    const link = await session();
    await link.lock(KEYS);
    // Thread a's partition of four (session-core's hash: 0; b's is 3), and a share of it alone.
    const partOf = (thread: string) =>
      createHash("md5").update(`g\n${thread}`, "utf8").digest().readUInt32BE(0) % 4;
    expect([partOf("a"), partOf("b")]).toEqual([0, 3]);
    const share = { of: 4, parts: [0], hashed: ["g"] };
    const fence = fenceOf(link);
    expect(texts(await db.outbox.due(Date.now(), 32, fence, share))).toEqual(["a1"]);
    await expect(
      db.outbox.due(Date.now(), 32, { ...fence, keys: [...KEYS, "99"] }, share),
    ).rejects.toMatchObject({ code: "role_not_held" });
  });
});
