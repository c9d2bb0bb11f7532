// Three sessions over one SQLite file and an in-process cluster: with an outbox backlog the leader
// asks the others to help and gives outbox partitions up (outbox-shares.ts). Every piece is sent
// once, each thread's pieces in the order they were written, more than one instance sends, and
// once the backlog is gone the leader sends everything again.
import { describe, expect, it } from "vitest";
import { BACKLOG_PIECES, OUTBOX_PARTITIONS } from "../src/outbox-shares.js";
import { createMemoryCluster } from "../src/testing/index.js";
import { backlogPieces, clusterRigs, rig, until } from "./session-harness.js";

const { rigs, freshDir } = clusterRigs();

const THREADS = 160;
const PER_THREAD = 5;

describe("the outbox under a backlog, several instances", () => {
  it("is sent by more than one instance, every piece once and each thread in order, then by the leader alone again", async () => {
    const dir = freshDir();
    const cluster = createMemoryCluster();
    const a = await rig({ dir, coordination: cluster.instance("a"), sweepMs: 60_000 });
    const b = await rig({ dir, coordination: cluster.instance("b"), store: a.db, sweepMs: 60_000 });
    const c = await rig({ dir, coordination: cluster.instance("c"), store: a.db, sweepMs: 60_000 });
    rigs.push(a, b, c);
    expect(cluster.leaderOf("session")).toBe("a");
    // Every send, in the order the platform got them, and a platform slow enough for a backlog.
    const log: { by: string; thread: string; text: string }[] = [];
    for (const [name, r] of [["a", a] as const, ["b", b] as const, ["c", c] as const]) {
      const send = r.gateway.send.bind(r.gateway);
      r.gateway.send = async (thread, text, options) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        log.push({ by: name, thread, text });
        return send(thread, text, options);
      };
    }
    // Written round by round, so each thread's pieces are spread over the queue.
    const pieces = Array.from({ length: PER_THREAD * THREADS }, (_, n) => {
      const [t, i] = [n % THREADS, Math.floor(n / THREADS)];
      return {
        gateway: "mock",
        thread: `t${t}`,
        idemKey: `t${t}:${i}`,
        kind: "text" as const,
        payload: { text: `t${t}:${i}` },
      };
    });
    expect(pieces.length).toBeGreaterThan(2 * BACKLOG_PIECES);
    // One transaction: the whole backlog is there at once, not drained as it is written.
    await a.db.transaction(() => a.db.outbox.enqueue(pieces));
    await until(() => log.length >= pieces.length, "every piece sent", 60_000);
    // Once each.
    expect(new Set(log.map((s) => s.text)).size).toBe(pieces.length);
    expect(log).toHaveLength(pieces.length);
    // Each thread in the order its pieces were written, whichever instance sent them.
    for (let t = 0; t < THREADS; t++) {
      const sent = log.filter((s) => s.thread === `t${t}`).map((s) => s.text);
      expect(sent).toEqual(Array.from({ length: PER_THREAD }, (_, i) => `t${t}:${i}`));
    }
    const by = new Set(log.map((s) => s.by));
    expect(by.has("a")).toBe(true);
    expect(by.size).toBeGreaterThan(1);
    expect(await a.db.outbox.countByStatus("sent")).toBe(pieces.length);
    // The helpers give their partitions back once nothing is due in them; the leader takes them.
    await until(
      () =>
        Array.from({ length: OUTBOX_PARTITIONS }, (_, i) => cluster.leaderOf(`outbox:${i}`)).every(
          (leader) => leader === "a",
        ),
      "every partition back with the leader",
      30_000,
    );
    await a.db.outbox.enqueue([{ ...pieces[0]!, idemKey: "after", payload: { text: "after" } }]);
    await until(() => log.some((s) => s.text === "after"), "a piece written after the backlog");
    expect(log.find((s) => s.text === "after")?.by).toBe("a");
  }, 120_000);

  it("gives a partition up only once the leader's sends in flight are over: a helper never sends a piece the leader is sending", async () => {
    const dir = freshDir();
    const cluster = createMemoryCluster();
    const a = await rig({ dir, coordination: cluster.instance("a"), sweepMs: 60_000 });
    const b = await rig({ dir, coordination: cluster.instance("b"), store: a.db, sweepMs: 60_000 });
    rigs.push(a, b);
    const log: { by: string; text: string }[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // The leader's sends past the backlog mark hang until the gate opens: a batch in flight.
    let attempts = 0;
    const sendA = a.gateway.send.bind(a.gateway);
    a.gateway.send = async (thread, text, options) => {
      if (++attempts > BACKLOG_PIECES) await gate;
      log.push({ by: "a", text });
      return sendA(thread, text, options);
    };
    const sendB = b.gateway.send.bind(b.gateway);
    b.gateway.send = async (thread, text, options) => {
      log.push({ by: "b", text });
      return sendB(thread, text, options);
    };
    const pieces = backlogPieces(4 * BACKLOG_PIECES);
    // One transaction: the whole backlog is there at once, not drained as it is written.
    await a.db.transaction(() => a.db.outbox.enqueue(pieces));
    const givingUp = () =>
      a.logs.lines().some((l) => String(l.msg).startsWith("outbox: giving partitions up"));
    await until(givingUp, "the leader giving partitions up", 30_000);
    // A give-up that did not wait for the batch would have handed the roles over by the next turn of the loop.
    await new Promise((resolve) => setImmediate(resolve));
    for (let p = 1; p < OUTBOX_PARTITIONS; p++) expect(cluster.leaderOf(`outbox:${p}`)).toBe("a");
    expect(log.filter((s) => s.by === "b")).toEqual([]);
    open();
    await until(() => log.length >= pieces.length, "every piece sent", 60_000);
    expect(new Set(log.map((s) => s.text)).size).toBe(pieces.length);
    expect(log).toHaveLength(pieces.length);
    expect(log.some((s) => s.by === "b")).toBe(true);
  }, 120_000);
});
