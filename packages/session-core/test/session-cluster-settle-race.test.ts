// A message for a thread this instance is letting go (#45.5): the claim saw the thread held, but
// the release ran before the message's turn was queued behind it. The turn must not run on a
// thread whose lock is gone (its commit would be refused by the fence with no dropped connection:
// "lost the lock of a thread", then "not committed"); it takes the thread again first.
import { describe, expect, it } from "vitest";
import { createMemoryCluster } from "../src/testing/index.js";
import { parked, until, useRig } from "./session-harness.js";

const T = "T";
const openRig = useRig();

describe("a message arriving while its thread is let go", () => {
  it("runs once the thread is taken again: committed and answered, no lost lock and no refused commit", async () => {
    const cluster = createMemoryCluster();
    const refused: unknown[] = [];
    const keep = (obj: object, msg?: string) => {
      if (msg === "could not persist the turn") refused.push(obj);
    };
    const a = await openRig({
      coordination: cluster.instance("a"),
      sweepMs: 60_000,
      runLogger: { info: keep, warn: keep, error: keep },
    });
    // The look for fresh messages of the thread once its first turn ended (settle): the store
    // answers "nothing new", then waits while the next message is recorded and claimed.
    const read = a.db.inbox.queued.bind(a.db.inbox);
    const step = parked();
    a.db.inbox.queued = async (gateway, thread) => {
      const rows = await read(gateway, thread);
      if (thread === T && a.runs.starts.length === 1 && !a.session.snapshot("mock", T).running && !step.began)
        await step.reached();
      return rows;
    };
    await a.gateway.inject({ thread: T, text: "first" });
    await until(() => step.began, "the settle's look parked after the first turn");
    await a.gateway.inject({ thread: T, text: "second" });
    // The second message's claim has seen the thread held and waits behind the settle.
    await new Promise((r) => setImmediate(r));
    step.release();
    await until(() => a.runs.starts.length === 2, "the second turn started");
    await a.session.idle();
    expect(refused).toEqual([]);
    expect(a.gateway.textsTo(T)).toHaveLength(2);
    expect(a.logs.lines().filter((l) => String(l.msg).startsWith("lost the lock"))).toEqual([]);
    expect((await a.db.inbox.unfinished()).length).toBe(0);
    expect(a.runs.starts.length).toBe(2);
  });
});
