// What a turn's commit asks of the store: its end (inbox record done, reply queued) joins the
// transaction that saves its messages instead of nesting one (a savepoint that protects nothing
// costs two round trips on PostgreSQL), and a turn that never suspended does not look for a reply
// prefix (only an approval request mid-reply stores one). The end stays atomic with the messages.
import { describe, expect, it } from "vitest";
import { prefixKey } from "../src/streaming.js";
import { type Rig, until, useRig } from "./session-harness.js";
import { refuseReplyRowOnce } from "./turn-harness.js";

const openRig = useRig();

/** Counts store transactions opened inside another (savepoints) and gateway-state keys read. */
function watch(r: Rig) {
  const seen = { nested: 0, keys: [] as string[] };
  const transaction = r.db.transaction.bind(r.db);
  r.db.transaction = (fn) => {
    if (r.db.inTransaction()) seen.nested++;
    return transaction(fn);
  };
  const get = r.db.gatewayState.get.bind(r.db.gatewayState);
  r.db.gatewayState.get = (gateway, key) => {
    seen.keys.push(key);
    return get(gateway, key);
  };
  return seen;
}

describe("a turn's commit", () => {
  it("writes the turn's end in the transaction saving its messages, without a nested one", async () => {
    const r = await openRig();
    const seen = watch(r);
    await r.gateway.inject({ thread: "t1", text: "hello" });
    await until(() => r.gateway.textsTo("t1").length === 1, "the reply sent");
    expect(seen.nested).toBe(0);
    expect(await r.db.inbox.unfinished()).toEqual([]);
    expect((await r.db.outbox.list("mock", "t1")).map((row) => row.status)).toEqual(["sent"]);
  });

  it("rolls back the turn's messages with its end when writing the end fails", async () => {
    const r = await openRig();
    refuseReplyRowOnce(r);
    await r.gateway.inject({ thread: "t1", text: "hello" });
    await until(() => r.gateway.textsTo("t1").length === 1, "the failure reply sent");
    expect(r.gateway.textsTo("t1")[0]).toMatch(/^Sorry, I could not answer/);
    // Nothing of the turn was saved: the messages went with the refused end.
    const memory = r.db.createMemory({ canSummarize: false });
    expect(await memory.load({ userId: "mock", conversationId: "t1" })).toEqual([]);
    expect((await r.db.inbox.unfinished()).length).toBe(0);
  });

  it("moves the thread's next queued message to running with the end of the turn before it, not with a mark of its own", async () => {
    const r = await openRig();
    const marked: number[] = [];
    const markRunning = r.db.inbox.markRunning.bind(r.db.inbox);
    r.db.inbox.markRunning = (id) => {
      marked.push(id);
      return markRunning(id);
    };
    await r.gateway.inject({ thread: "t1", text: "use wait_gate first" });
    await until(() => r.gates.calls.length === 1, "the first turn at its gate");
    await r.gateway.inject({ thread: "t1", text: "second" });
    await until(() => r.session.snapshot("mock", "t1").queued === 1, "the second queued");
    r.gates.openAll();
    await until(() => r.gateway.textsTo("t1").length === 2, "both answered");
    const ids = (await r.db.outbox.list("mock", "t1")).map((row) => Number(/in(\d+)/.exec(row.idemKey)?.[1]));
    expect(marked).toEqual([ids[0]]);
    expect(r.gateway.textsTo("t1")[1]).toContain("second");
    expect(await r.db.inbox.unfinished()).toEqual([]);
  });

  it("does not look for a reply prefix when the turn never suspended", async () => {
    const r = await openRig();
    const seen = watch(r);
    await r.gateway.inject({ thread: "t1", text: "hello" });
    await until(() => r.gateway.textsTo("t1").length === 1, "the reply sent");
    const [inboxId] = (await r.db.outbox.list("mock", "t1")).map((row) =>
      Number(/in(\d+)/.exec(row.idemKey)?.[1]),
    );
    expect(inboxId).toBeGreaterThan(0);
    expect(seen.keys).not.toContain(prefixKey(inboxId as number));
  });
});
