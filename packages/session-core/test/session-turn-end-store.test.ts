// What a turn's end leaves in the store (turns.ts #end): the thread's next queued record is running
// while its turn runs (moved by the end before it), and a store without `inbox.finish` (optional in
// SessionStore) still gets the record's end and the reply, and the next turn's running mark. Found
// by a mutation run of turns.ts (#45): no test read the next record's status during its turn, and no
// test ran a store without finish.
import { describe, expect, it } from "vitest";
import { type Rig, until, useRig } from "./session-harness.js";

const openRig = useRig();

/** Two messages on one thread, the second queued behind the first, both turns stopping at their gate. */
async function twoQueued(r: Rig): Promise<number[]> {
  await r.gateway.inject({ thread: "t1", text: "use wait_gate first" });
  await until(() => r.gates.calls.length === 1, "the first turn at its gate");
  await r.gateway.inject({ thread: "t1", text: "use wait_gate second" });
  await until(() => r.session.snapshot("mock", "t1").queued === 1, "the second queued");
  return (await r.db.inbox.unfinished()).map((rec) => rec.id);
}

describe("a turn's end in the store", () => {
  it("leaves the thread's next record running while its turn runs", async () => {
    const r = await openRig();
    const [first, second] = await twoQueued(r);
    expect((await r.db.inbox.get(second!))?.status).toBe("queued");
    await r.gates.openNext();
    await until(() => r.gates.calls.length === 2, "the second turn at its gate");
    expect((await r.db.inbox.get(first!))?.status).toBe("done");
    expect((await r.db.inbox.get(second!))?.status).toBe("running");
    r.gates.openAll();
    await until(() => r.gateway.textsTo("t1").length === 2, "both answered");
    expect(await r.db.inbox.unfinished()).toEqual([]);
  });

  it("on a store without inbox.finish, ends the record, queues the reply and marks the next turn running with calls of their own", async () => {
    const r = await openRig();
    // The session sees no finish; the store's own markDone (made of it) still works.
    const finish = r.db.inbox.finish.bind(r.db.inbox);
    r.db.inbox.markDone = (id, status) => finish(id, status, []);
    (r.db.inbox as { finish?: unknown }).finish = undefined;
    const [first, second] = await twoQueued(r);
    await r.gates.openNext();
    await until(() => r.gates.calls.length === 2, "the second turn at its gate");
    expect((await r.db.inbox.get(first!))?.status).toBe("done");
    expect((await r.db.inbox.get(second!))?.status).toBe("running");
    r.gates.openAll();
    await until(() => r.gateway.textsTo("t1").length === 2, "both answered");
    expect(await r.db.inbox.unfinished()).toEqual([]);
    expect((await r.db.outbox.list("mock", "t1")).map((row) => row.status)).toEqual(["sent", "sent"]);
  });
});
