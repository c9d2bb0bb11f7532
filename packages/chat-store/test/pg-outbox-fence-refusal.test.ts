// What the outbox's fenced due read (outbox-fence.ts) rejects with: role_not_held only when the
// fence refused it, saying so with the session it asked for and the server's answer as its cause;
// a read that failed for another reason (cancelled) keeps its own error. The sender gives up its
// roles' work on role_not_held: a cancel reported as one would stop a sender that still leads.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { fencedDueError } from "../src/outbox-fence.js";
import { KEYS, useFenceRig } from "./pg-fence-rig.js";
import { codesOf, lockWaiters } from "./pg-fence-waits.js";

const rig = useFenceRig(["a"]);

describe("a failed fenced due read's error", () => {
  const fence = { pid: 1, keys: KEYS, incarnation: "1" };
  it("is passed on as it is unless one error in its chain has both the refusal's code (22P02) and its text", () => {
    const mark = "agentsvc: the outbox role is not held";
    const cases = [
      { code: "22P02" },
      { code: "22P02", message: 'invalid input syntax for type bigint: "x"' },
      { code: "57014", message: `canceling statement: ${mark} 1` },
      { message: `Failed query: ... ${mark} ...`, cause: { code: "57014", message: "canceling statement" } },
    ];
    for (const error of cases) expect(fencedDueError(error, fence), JSON.stringify(error)).toBe(error);
    const refused = { code: "22P02", message: `invalid input syntax for type integer: "${mark} 1"` };
    expect(fencedDueError({ message: "Failed query", cause: refused }, fence)).toMatchObject({
      code: "role_not_held",
    });
  });
});

describe.skipIf(postgresMissing)("[postgres] the outbox's fenced due read, refused", () => {
  it("a refusal names the session it was asked for and carries the server's answer (22P02) as its cause", async () => {
    const { db, session } = await rig();
    const link = await session();
    const refused = (await db.outbox
      .due(Date.now(), 32, { pid: link.pid, keys: KEYS, incarnation: link.incarnation })
      .catch((e) => e)) as Error;
    expect(refused).toMatchObject({ code: "role_not_held", name: "RoleNotHeldError" });
    expect(refused.message).toBe(
      `the outbox roles are no longer all held by session ${link.pid}: nothing read`,
    );
    expect(codesOf(refused.cause)).toContain("22P02");
  });

  it("a read that fails for another reason (cancelled while it waits for the outbox table) rejects with that error, not role_not_held", async () => {
    const { db, session } = await rig();
    const link = await session();
    for (const key of KEYS) await link.client.query("SELECT pg_advisory_lock($1::bigint)", [key]);
    const other = await session();
    await other.client.query("BEGIN");
    await other.client.query('LOCK TABLE "outbox" IN ACCESS EXCLUSIVE MODE');
    const fence = { pid: link.pid, keys: KEYS, incarnation: link.incarnation };
    const reading = db.outbox.due(Date.now(), 32, fence).then(
      () => undefined,
      (e: unknown) => e,
    );
    const [pid] = await lockWaiters(link.client, "%pg_try_advisory_xact_lock_shared%");
    expect(pid).toBeDefined();
    await link.client.query("SELECT pg_cancel_backend($1::int)", [pid]);
    const failed = await reading;
    await other.client.query("ROLLBACK");
    expect(failed).toBeInstanceOf(Error);
    expect(failed).not.toMatchObject({ code: "role_not_held" });
    expect(codesOf(failed)).toContain("57014"); // query_canceled
  });
});
