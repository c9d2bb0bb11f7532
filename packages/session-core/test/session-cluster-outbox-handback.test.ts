// Three sessions and an in-process cluster after an outbox backlog (outbox-shares.ts): what the
// partitions' roles cost once the backlog is sent. Each partition goes from the leader to one helper
// and back to the leader once (not on to another helper that still queued for it, to be given back
// again seconds later: a take, a give-back and a release on PostgreSQL each time), and roles
// changing hands wake no other instance's sender (nothing was queued by it).
import { describe, expect, it } from "vitest";
import type { ClusterMessage, Coordination } from "../src/coordination.js";
import { BACKLOG_PIECES, OUTBOX_PARTITIONS } from "../src/outbox-shares.js";
import { createMemoryCluster } from "../src/testing/index.js";
import { backlogPieces, clusterRigs, rig, until } from "./session-harness.js";

const { rigs, freshDir } = clusterRigs();

/**
 * The instance's coordination, its role gains and its announcements written to `gains` and `said`;
 * a lead's options go through (the leader's requeue waits LEADER_REQUEUE_MS for a free partition).
 */
function watched(
  cluster: ReturnType<typeof createMemoryCluster>,
  name: string,
  gains: { by: string; role: string }[],
  said: { by: string; kind: ClusterMessage["kind"] }[],
): Coordination {
  const c = cluster.instance(name);
  const lead = c.lead.bind(c);
  c.lead = (role, handlers, options) =>
    lead(
      role,
      {
        onLead: () => {
          gains.push({ by: name, role });
          return handlers.onLead();
        },
        onLose: () => handlers.onLose(),
      },
      options,
    );
  const publish = c.publish.bind(c);
  c.publish = (message) => {
    said.push({ by: name, kind: message.kind });
    return publish(message);
  };
  return c;
}

describe("the outbox roles after a backlog, three instances", () => {
  it("go from the leader to one helper each and back to the leader once, and wake no sender as they change hands", async () => {
    const dir = freshDir();
    const cluster = createMemoryCluster();
    const gains: { by: string; role: string }[] = [];
    const said: { by: string; kind: ClusterMessage["kind"] }[] = [];
    const a = await rig({ dir, coordination: watched(cluster, "a", gains, said), sweepMs: 60_000 });
    const b = await rig({
      dir,
      coordination: watched(cluster, "b", gains, said),
      store: a.db,
      sweepMs: 60_000,
    });
    const c = await rig({
      dir,
      coordination: watched(cluster, "c", gains, said),
      store: a.db,
      sweepMs: 60_000,
    });
    rigs.push(a, b, c);
    const log: string[] = [];
    for (const r of [a, b, c]) {
      const send = r.gateway.send.bind(r.gateway);
      r.gateway.send = async (thread, text, options) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        log.push(text);
        return send(thread, text, options);
      };
    }
    const pieces = backlogPieces(6 * BACKLOG_PIECES);
    // One transaction: the whole backlog at once; nothing woke a sender (the leader's look finds it).
    await a.db.transaction(() => a.db.outbox.enqueue(pieces));
    await until(() => log.length >= pieces.length, "every piece sent", 60_000);
    await until(
      () =>
        Array.from({ length: OUTBOX_PARTITIONS }, (_, i) => cluster.leaderOf(`outbox:${i}`)).every(
          (leader) => leader === "a",
        ),
      "every partition back with the leader",
      30_000,
    );
    expect(log).toHaveLength(pieces.length);
    const helped = gains.filter((g) => g.by !== "a");
    // The backlog was shared.
    expect(helped.length).toBeGreaterThan(0);
    // Each partition a helper took was taken by one helper, once.
    for (let p = 1; p < OUTBOX_PARTITIONS; p++)
      expect(helped.filter((g) => g.role === `outbox:${p}`).length).toBeLessThanOrEqual(1);
    // Nothing was committed by any instance: no outbox wake announced as the roles changed hands.
    expect(said.filter((s) => s.kind === "outbox")).toEqual([]);
  }, 120_000);
});
