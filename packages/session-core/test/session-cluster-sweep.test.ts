// How often instances of several list the inbox for work nobody took (#45.3 c): an instance that
// does not lead every 16th period only, and only while it holds a thread (the leader's looks find
// what it would; at rest it reads nothing), and a new leader at its first period after taking over. Counted on the shared store's list of unfinished records, by
// the sweep task's own run count (its wake-ups: timed to the next look, 16 periods apart on an
// instance that does not lead; session-lead-sweep-wakes.test.ts proves the spacing on a fake clock).
import { describe, expect, it } from "vitest";
import { createMemoryCluster } from "../src/testing/index.js";
import { clusterRigs, type Rig, rig, until } from "./session-harness.js";

const { rigs, freshDir } = clusterRigs();

/** Wake-ups of `r`'s sweep task so far. */
const periods = (r: Rig) => r.session.scheduler.list().find((t) => t.name === "session:sweep")?.runs ?? 0;

/** a leads and never sweeps in the test's time; b does not lead and sweeps every `bSweepMs`. */
async function leaderAndFollower(bSweepMs: number, bThreadHoldMs?: number) {
  const dir = freshDir();
  const cluster = createMemoryCluster();
  const a = await rig({ dir, coordination: cluster.instance("a"), sweepMs: 600_000 });
  rigs.push(a);
  const hold = bThreadHoldMs === undefined ? {} : { threadHoldMs: bThreadHoldMs };
  const b = await rig({ dir, coordination: cluster.instance("b"), store: a.db, sweepMs: bSweepMs, ...hold });
  rigs.push(b);
  // Every list from here on is b's: a is idle and its first period is minutes away.
  const lists: number[] = [];
  const unfinished = a.db.inbox.unfinished.bind(a.db.inbox);
  a.db.inbox.unfinished = () => {
    lists.push(periods(b));
    return unfinished();
  };
  return { a, b, cluster, lists, from: periods(b) };
}

describe("the sweep on several instances", () => {
  it("an instance that does not lead and holds no thread never lists the inbox", async () => {
    const { b, lists, from } = await leaderAndFollower(10);
    await until(() => periods(b) >= from + 4, "4 wake-ups of b's sweep (64 periods)", 30_000);
    expect(lists).toEqual([]);
  });

  it("an instance that does not lead lists the inbox at each wake of its sweep once it holds a thread", async () => {
    const { a, b, cluster, lists, from } = await leaderAndFollower(10, 600_000);
    await until(() => periods(b) >= from + 2, "b's wake-ups holding nothing");
    expect(lists).toEqual([]);
    const before = periods(b);
    await b.gateway.inject({ thread: "T", text: "hello", id: "m1" });
    // The turn runs on b, which recorded it; its reply is sent by the leader, a.
    await until(() => a.gateway.textsTo("T").length === 1, "the reply");
    expect(cluster.holders().get("gw:mock:T")).toBe("b");
    await until(() => periods(b) >= before + 4, "4 wake-ups of b's sweep while it holds the thread", 30_000);
    const upTo = periods(b);
    const seen = lists.filter((wake) => wake <= upTo);
    expect(seen[0]!).toBeGreaterThan(before);
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => seen[0]! + i));
    expect(seen.length).toBeGreaterThanOrEqual(2);
  });

  it("an instance that takes over the lead lists the inbox within two periods, not after its follower's wait", async () => {
    const { b, cluster, lists, from } = await leaderAndFollower(100);
    await until(() => periods(b) >= from + 2, "b's periods as a follower");
    expect(lists).toEqual([]);
    cluster.drop("a");
    await until(
      () => b.logs.lines().some((l) => l.msg === "this instance leads: platform connections and the outbox"),
      "b leads",
    );
    const led = periods(b);
    await until(() => periods(b) >= led + 2, "two periods after b took the lead");
    expect(lists.length).toBeGreaterThanOrEqual(1);
    expect(lists[0]!).toBeLessThanOrEqual(led + 2);
  });
});
