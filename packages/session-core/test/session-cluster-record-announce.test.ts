// A message recorded on an instance that does not hold its thread, announced to the holder by the
// statement recording it (Coordination.recordAnnounce; on PostgreSQL a NOTIFY in the inbox INSERT,
// chat-store's pg-accept-announce.test): the recorder asks for no lock and publishes nothing (#45.3).
import { describe, expect, it } from "vitest";
import type { ClusterMessage, Coordination, RecordAnnounce } from "../src/index.js";
import { createMemoryCluster } from "../src/testing/index.js";
import { clusterRigs, countingLocks, rig, until } from "./session-harness.js";

const { rigs, freshDir } = clusterRigs();

/**
 * Two instances over one store; b's coordination gives the recording statement an announcement and
 * the store sends it as PostgreSQL's INSERT would: to every instance, with the record's id, when an
 * instance other than b holds the thread's lock.
 */
async function two() {
  const dir = freshDir();
  const cluster = createMemoryCluster();
  const asked = { a: [] as string[], b: [] as string[] };
  const published: ClusterMessage[] = [];
  const hints: string[] = [];
  const innerB = countingLocks(cluster.instance("b"), asked.b);
  const b: Coordination = {
    ...innerB,
    recordAnnounce(key, message): RecordAnnounce {
      hints.push(key);
      return { lock: { pid: 2, key, incarnation: "2" }, channel: "bus", payload: JSON.stringify(message) };
    },
    publish: (m) => {
      published.push(m);
      return innerB.publish(m);
    },
  };
  const common = { dir, sweepMs: 60_000 };
  const ra = await rig({ ...common, coordination: countingLocks(cluster.instance("a"), asked.a) });
  const rb = await rig({ ...common, coordination: b, store: ra.db });
  rigs.push(ra, rb);
  const accept = ra.db.inbox.accept.bind(ra.db.inbox);
  const queued = ra.db.inbox.queued.bind(ra.db.inbox);
  // The holder's reads of queued records (a's).
  const reads: string[] = [];
  ra.db.inbox.queued = (gateway, thread) => {
    reads.push(thread);
    return queued(gateway, thread);
  };
  ra.db.inbox.accept = async (input, opts) => {
    // As the statement: the thread's queued records older than this one, committed before it.
    const older = (await queued(input.gateway, input.thread)).map((r) => r.id);
    const result = await accept(input);
    const announce = opts?.announce;
    const holder = announce && cluster.holders().get(announce.lock.key);
    if (!result.accepted || !announce || !holder || holder === "b") return result;
    const record = { text: input.text, origin: input.origin, attachments: null };
    const message = {
      ...JSON.parse(announce.payload),
      id: result.id,
      record,
      prior: older,
    } as ClusterMessage;
    await innerB.publish(message);
    return { ...result, announced: true };
  };
  return { ra, rb, asked, published, hints, reads };
}

describe("a message recorded where another instance holds its thread", () => {
  it("is announced to the holder by the statement recording it: the recorder asks for no lock and publishes nothing; the holder answers it", async () => {
    const { ra, rb, asked, published, hints } = await two();
    await ra.gateway.inject({ thread: "T", text: "use wait_gate first", id: "m1" });
    await until(() => ra.gates.calls.length === 1, "a's turn at its gate");
    await rb.gateway.inject({ thread: "T", text: "behind it", id: "m2" });
    await until(() => ra.session.snapshot("mock", "T").queued === 1, "queued on the holder");
    expect(hints).toEqual(["gw:mock:T"]);
    expect(asked.b).toEqual([]);
    expect(published.filter((m) => m.kind === "thread")).toEqual([]);
    ra.gates.openAll();
    await until(() => ra.gateway.textsTo("T").length === 2, "both answered");
    expect(rb.runs.starts).toHaveLength(0);
  });

  it("carrying the record, with every older queued record taken by the holder: the holder takes it without reading the thread's queued records", async () => {
    const { ra, rb, reads } = await two();
    await ra.gateway.inject({ thread: "T", text: "use wait_gate first", id: "m1" });
    await until(() => ra.gates.calls.length === 1, "a's turn at its gate");
    const before = reads.length;
    await rb.gateway.inject({ thread: "T", text: "second", id: "m2" });
    await until(() => ra.session.snapshot("mock", "T").queued === 1, "queued on the holder");
    await rb.gateway.inject({ thread: "T", text: "third", id: "m3" });
    await until(() => ra.session.snapshot("mock", "T").queued === 2, "both queued on the holder");
    expect(reads.length - before).toBe(0);
    ra.gates.openAll();
    await until(() => ra.gateway.textsTo("T").length === 3, "all answered");
    // In the order they were recorded.
    expect(ra.runs.starts.map((s) => s.input)).toEqual(["use wait_gate first", "second", "third"]);
  });

  it("carrying the record after one the holder has not taken: the holder reads the thread's queued records, the older first", async () => {
    // The older record's own announcement is lost: only the newer one's reaches the holder.
    const { ra, rb, reads } = await two();
    await ra.gateway.inject({ thread: "T", text: "use wait_gate first", id: "m1" });
    await until(() => ra.gates.calls.length === 1, "a's turn at its gate");
    const older = await ra.db.inbox.accept({
      gateway: "mock",
      dedupKey: "lost",
      thread: "T",
      text: "older, unannounced",
      origin: { gateway: "mock", thread: "T", meta: {} },
    });
    expect(older.accepted).toBe(true);
    const before = reads.length;
    await rb.gateway.inject({ thread: "T", text: "newer", id: "m2" });
    await until(() => ra.session.snapshot("mock", "T").queued === 2, "both queued on the holder");
    expect(reads.length - before).toBe(1);
    ra.gates.openAll();
    await until(() => ra.gateway.textsTo("T").length === 3, "all answered");
    expect(ra.runs.starts.map((s) => s.input)).toEqual([
      "use wait_gate first",
      "older, unannounced",
      "newer",
    ]);
  });

  it("free: the recorder takes and runs it as before (nothing announced: no instance holds it)", async () => {
    const { ra, rb, asked } = await two();
    await rb.gateway.inject({ thread: "F", text: "hello", id: "m1" });
    // Sent by the leader (a).
    await until(() => ra.gateway.textsTo("F").length === 1, "answered");
    expect(rb.runs.starts).toHaveLength(1);
    expect(asked.b).toContain("gw:mock:F");
  });

  it("held by the recorder itself: no announcement is asked for", async () => {
    const { ra, rb, hints } = await two();
    await rb.gateway.inject({ thread: "H", text: "use wait_gate first", id: "m1" });
    await until(() => rb.gates.calls.length === 1, "b's turn at its gate");
    const before = hints.length;
    await rb.gateway.inject({ thread: "H", text: "behind it", id: "m2" });
    await until(() => rb.session.snapshot("mock", "H").queued === 1, "queued on b");
    expect(hints.length - before).toBe(0);
    rb.gates.openAll();
    await until(() => ra.gateway.textsTo("H").length === 2, "both answered");
  });
});
