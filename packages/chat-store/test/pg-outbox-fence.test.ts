// The outbox sender's fence folded into its due read (outbox-fence.ts, #45.3): pieces are read only
// while the session the fence names (an instance's cluster link) holds every role lock it lists.
// An instance whose link went away unnoticed, another instance holding its roles now, reads nothing.
import { createHash } from "node:crypto";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { RoleFence } from "../src/outbox-fence.js";
import { KEYS, useFenceRig } from "./pg-fence-rig.js";

const rig = useFenceRig(["a", "b"]);

const texts = (rows: { payload: unknown }[]) => rows.map((r) => (r.payload as { text: string }).text);

describe.skipIf(postgresMissing)("[postgres] the outbox's due read with the sender's role fence", () => {
  it("reads the due pieces while the fence's session holds every role lock", async () => {
    const { db, session } = await rig();
    const link = await session();
    await link.lock(KEYS);
    const fence: RoleFence = { pid: link.pid, keys: KEYS };
    expect(texts(await db.outbox.due(Date.now(), 32, fence))).toEqual(["a1", "b1"]);
  });

  it("refuses the read (role_not_held) when one of the role locks is not held by that session", async () => {
    const { db, session } = await rig();
    const link = await session();
    await link.lock([KEYS[0]!]);
    const read = db.outbox.due(Date.now(), 32, { pid: link.pid, keys: KEYS });
    await expect(read).rejects.toMatchObject({ code: "role_not_held" });
  });

  it("refuses the read once the session has ended and another holds the roles; the new holder reads them", async () => {
    const { db, session } = await rig();
    const link = await session();
    await link.lock(KEYS);
    const old: RoleFence = { pid: link.pid, keys: KEYS };
    await link.end();
    const other = await session();
    await other.lock(KEYS);
    await expect(db.outbox.due(Date.now(), 32, old)).rejects.toMatchObject({ code: "role_not_held" });
    expect(texts(await db.outbox.due(Date.now(), 32, { pid: other.pid, keys: KEYS }))).toEqual(["a1", "b1"]);
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
    expect(texts(await db.outbox.due(Date.now(), 32, { pid: link.pid, keys: KEYS }, share))).toEqual(["a1"]);
    await expect(
      db.outbox.due(Date.now(), 32, { pid: link.pid, keys: [...KEYS, "99"] }, share),
    ).rejects.toMatchObject({ code: "role_not_held" });
  });
});
