// A turn's end on a real PostgreSQL (turns.ts #end through chat-store's inbox.finish): the statement
// that ends the record and queues its reply checks the thread's lock in pg_locks (the fence), and
// commits on its own when nothing of the turn is written after it. The lock is the server's: a link
// that has not yet noticed its session gave the lock up still counts it held, and the fence is what
// keeps that instance's reply out when another instance took the thread meanwhile.
import { createRequire } from "node:module";
import { InstanceLink, ThreadLocks } from "@agentsvc/pg-cluster";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { defineTool } from "@agentsvc/agent-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Coordination } from "../src/index.js";
import { gatewayThreadId } from "../src/threads.js";
import { lockCoordination, postgresStore } from "./pg-locks.js";
import { type Rig, type RigOptions, rig, until } from "./session-harness.js";

const T = "T";
const threadId = gatewayThreadId("mock", T);

const ended: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const end of ended.splice(0).reverse()) await end();
});

let server: TestPostgres | undefined;
beforeAll(async () => {
  if (!postgresMissing) server = await startPostgres();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

/** A link to the database at `url` and its thread locks (one instance's, as the server builds them). */
async function locksOn(url: string): Promise<{ link: InstanceLink; locks: ThreadLocks }> {
  const link = new InstanceLink({ connectionString: url, healthCheckMs: 0 });
  await link.connect();
  ended.push(() => link.close());
  return { link, locks: new ThreadLocks(link) };
}

/**
 * One instance's coordination over `locks`, as apps/server builds it minus the bus (its
 * announcements come back to itself; it always leads). `folded`: the fence is folded into the turn's
 * end statement (heldLock); otherwise it is asked after the write, in the same transaction.
 */
function coordinationOf(locks: ThreadLocks, folded: boolean): Coordination {
  const { heldLock, ...unfolded } = lockCoordination(locks);
  return folded ? { ...unfolded, heldLock } : unfolded;
}

/**
 * One instance on a new database of the file's server; `other` is a second instance's locks there;
 * `errors`: what its run manager logged as errors (e.g. "could not persist the turn").
 */
async function instance(
  options: { folded?: boolean; policy?: "steer" | "queue"; rig?: Pick<RigOptions, "tools" | "script"> } = {},
): Promise<{ r: Rig; link: InstanceLink; locks: ThreadLocks; other: ThreadLocks; errors: string[] }> {
  if (!server) throw new Error("no PostgreSQL");
  const url = await server.createDatabase();
  const store = await postgresStore(url, 2);
  ended.push(store.close);
  const { link, locks } = await locksOn(url);
  const { locks: other } = await locksOn(url);
  const errors: string[] = [];
  const r = await rig({
    store: store.db,
    coordination: coordinationOf(locks, options.folded ?? true),
    ...(options.policy ? { gatewaySession: { policy: options.policy } } : {}),
    ...options.rig,
    runLogger: { info() {}, warn() {}, error: (obj, msg) => errors.push(`${msg}: ${JSON.stringify(obj)}`) },
  });
  ended.push(() => r.close());
  return { r, link, locks, other, errors };
}

/**
 * The thread's turn at its gate; then its lock is given back on the link's session behind the
 * link's back (the link still counts it held, as when its session ended unnoticed) and another
 * instance takes it. The gate opens and the turn is let run to its end.
 */
async function turnWhoseLockWasTaken(r: Rig, link: InstanceLink, locks: ThreadLocks, other: ThreadLocks) {
  await r.gateway.inject({ thread: T, text: "use wait_gate first", id: "m1" });
  await until(() => r.gates.calls.length === 1, "the turn at its gate");
  const { key } = locks.heldLock(threadId);
  const [row] = await link.query<{ ok: boolean }>("SELECT pg_advisory_unlock($1::bigint) AS ok", [key]);
  expect(row?.ok).toBe(true);
  expect(locks.isHeld(threadId)).toBe(true);
  expect(await other.tryLock(threadId)).toBe(true);
  r.gates.openAll();
  await until(() => !r.session.snapshot("mock", T).running, "the turn over");
}

/** node-postgres as @agentsvc/store-postgres loads it (the instance the store's pools use). */
function storePg(): { Client: { prototype: object } } {
  const storePostgres = createRequire(import.meta.url).resolve("@agentsvc/store-postgres");
  return createRequire(storePostgres)("pg") as { Client: { prototype: object } };
}

/** Every statement text sent while `work` runs, with the client that sent it (BEGIN and COMMIT included). */
async function statementsOf(work: () => Promise<void>): Promise<{ client: unknown; text: string }[]> {
  const proto = storePg().Client.prototype as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const seen: { client: unknown; text: string }[] = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const [config] = args;
    const text = typeof config === "string" ? config : (config as { text?: unknown } | undefined)?.text;
    if (typeof text === "string") seen.push({ client: this, text });
    return original.apply(this, args);
  };
  try {
    await work();
  } finally {
    proto.query = original;
  }
  return seen;
}

/** The record's end (a WITH clause of the turn's end statement, its parameters renumbered there). */
const ENDS_RECORD = /UPDATE "inbox" SET status = \$\d+, finished_at/;
/** A queued record moved to running (a WITH clause of a turn's end, or a statement of its own). */
const MARKS_RUNNING = /UPDATE "inbox" SET status = 'running'/;

describe.skipIf(postgresMissing)("a turn's end on PostgreSQL", () => {
  it("a turn whose thread another instance took (this link had not noticed) commits neither its reply nor its record's end: the fence in the end statement refuses it", async () => {
    const { r, link, locks, other } = await instance();
    await turnWhoseLockWasTaken(r, link, locks, other);
    const unfinished = await r.db.inbox.unfinished();
    expect(unfinished.map((m) => m.text)).toEqual(["use wait_gate first"]);
    const [outbox] = await link.query<{ n: number }>('SELECT count(*)::int AS n FROM "outbox"');
    expect(outbox?.n).toBe(0);
    expect(r.logs.lines().some((l) => String(l.msg).startsWith("lost the lock"))).toBe(true);
  });

  it("with the fence asked after the write (a coordination without heldLock), a turn whose thread another instance took commits nothing either: its end does not commit on its own before the fence", async () => {
    const { r, link, locks, other } = await instance({ folded: false });
    await turnWhoseLockWasTaken(r, link, locks, other);
    const unfinished = await r.db.inbox.unfinished();
    expect(unfinished.map((m) => m.text)).toEqual(["use wait_gate first"]);
    const [outbox] = await link.query<{ n: number }>('SELECT count(*)::int AS n FROM "outbox"');
    expect(outbox?.n).toBe(0);
  });

  it("a turn with a message steered into it ends both records and sends one reply (the steered record is marked after the end statement, in its transaction)", async () => {
    const { r, errors } = await instance({ policy: "steer" });
    await r.gateway.inject({ thread: T, text: "use wait_gate first", id: "m1" });
    await until(() => r.gates.calls.length === 1, "the turn at its gate");
    await r.gateway.inject({ thread: T, text: "and this too", id: "m2" });
    await until(() => r.session.snapshot("mock", T).steered === 1, "steered into the turn");
    r.gates.openAll();
    await until(() => r.gateway.textsTo(T).length === 1, "the reply");
    await r.session.idle();
    expect(r.gateway.textsTo(T)).toHaveLength(1);
    expect(r.gateway.textsTo(T)[0]).toContain("and this too");
    expect(await r.db.inbox.unfinished()).toEqual([]);
    expect(r.runs.starts).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it("a message queued behind a turn is moved to running by that turn's end statement: its own turn sends no running mark of its own", async () => {
    const { r, errors } = await instance({ policy: "queue" });
    await r.gateway.inject({ thread: T, text: "use wait_gate first", id: "m1" });
    await until(() => r.gates.calls.length === 1, "the turn at its gate");
    await r.gateway.inject({ thread: T, text: "then this", id: "m2" });
    await until(() => r.session.snapshot("mock", T).queued === 1, "queued behind the turn");
    const sent = await statementsOf(async () => {
      r.gates.openAll();
      await until(() => r.gateway.textsTo(T).length === 2, "both replies");
      await r.session.idle();
    });
    const marks = sent.filter((s) => MARKS_RUNNING.test(s.text));
    expect(marks).toHaveLength(1);
    expect(marks[0]?.text).toMatch(ENDS_RECORD);
    expect(r.gateway.textsTo(T)[1]).toContain("then this");
    expect(await r.db.inbox.unfinished()).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("an approved turn's continuation ends without error (its checkpoint is removed after the end statement, in its transaction)", async () => {
    const { r, errors } = await instance();
    await r.gateway.inject({ thread: T, text: "use delete_file report.txt", id: "m1" });
    await until(() => r.gateway.decisionRequests.length > 0, "the decision request");
    const req = r.gateway.decisionRequests[0] as { requestId: string };
    expect(await r.gateway.decide(req.requestId, "approve", "mock:alice")).toMatchObject({ ok: true });
    await until(() => r.gateway.textsTo(T).length === 1, "the continuation's reply");
    await r.session.idle();
    expect(r.gateway.textsTo(T)).toEqual(["The tool delete_file returned: deleted."]);
    expect(await r.db.inbox.unfinished()).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("a turn whose tool handed back a file ends without error, the file's piece queued after the end statement, in its transaction", async () => {
    const chart = defineTool({
      name: "draw_chart",
      description: "Draws a chart.",
      input: { type: "json-schema" as const, schema: { type: "object", properties: {} } },
      execute: async () => ({
        files: [{ name: "chart.png", contentType: "image/png", data: Buffer.from("png").toString("base64") }],
      }),
    });
    const script = [
      { text: "", toolCalls: [{ name: "draw_chart", arguments: {} }] },
      { text: "Here it is." },
    ];
    const { r, errors } = await instance({ rig: { tools: [chart], script } });
    await r.gateway.inject({ thread: T, text: "draw it", id: "m1" });
    await until(() => r.gateway.sent.length === 2, "the reply and the file's note");
    await r.session.idle();
    expect(r.gateway.textsTo(T)[0]).toBe("Here it is.");
    expect(await r.db.inbox.unfinished()).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("a turn with nothing written after its end ends in one statement that commits on its own (no BEGIN before it, no COMMIT after it on its connection)", async () => {
    const { r } = await instance();
    await r.gateway.inject({ thread: T, text: "use wait_gate first", id: "m1" });
    await until(() => r.gates.calls.length === 1, "the turn at its gate");
    const sent = await statementsOf(async () => {
      r.gates.openAll();
      await until(() => r.gateway.textsTo(T).length === 1, "the reply");
      await r.session.idle();
    });
    const at = sent.findIndex((s) => ENDS_RECORD.test(s.text));
    expect(at).toBeGreaterThanOrEqual(0);
    const end = sent[at] as (typeof sent)[number];
    const onItsClient = sent.filter((s) => s.client === end.client);
    const i = onItsClient.indexOf(end);
    expect(onItsClient[i - 1]?.text ?? "").not.toMatch(/^\s*begin\b/i);
    expect(onItsClient[i + 1]?.text ?? "").not.toMatch(/^\s*commit\b/i);
    expect(await r.db.inbox.unfinished()).toEqual([]);
  });
});
