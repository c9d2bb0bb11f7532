// A turn's end on a real PostgreSQL (turns.ts #end through chat-store's inbox.finish): the statement
// that ends the record and queues its reply checks the thread's lock (the fence: its key held, the
// link's session alive), and commits on its own when nothing of the turn is written after it. The
// lock is the server's: a link that has not yet noticed its session's locks went still counts it
// held, and the fence is what keeps that instance's reply out when another instance took the thread
// meanwhile.
import { createRequire } from "node:module";
import { InstanceLink, ThreadLocks } from "@agentsvc/pg-cluster";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { defineTool } from "@agentsvc/agent-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ClusterMessage, Coordination } from "../src/index.js";
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
  options: {
    folded?: boolean;
    policy?: "steer" | "queue";
    rig?: Pick<RigOptions, "tools" | "script" | "threadHoldMs">;
    /** The coordination as the session gets it, from the one built here. */
    wrap?: (c: Coordination) => Coordination;
    /** The store's pool size (default 2). */
    pool?: number;
  } = {},
): Promise<{ r: Rig; link: InstanceLink; locks: ThreadLocks; other: ThreadLocks; errors: string[] }> {
  if (!server) throw new Error("no PostgreSQL");
  const url = await server.createDatabase();
  const store = await postgresStore(url, options.pool ?? 2);
  ended.push(store.close);
  const { link, locks } = await locksOn(url);
  const { locks: other } = await locksOn(url);
  const errors: string[] = [];
  const r = await rig({
    store: store.db,
    coordination: (options.wrap ?? ((c) => c))(coordinationOf(locks, options.folded ?? true)),
    ...(options.policy ? { gatewaySession: { policy: options.policy } } : {}),
    ...options.rig,
    runLogger: { info() {}, warn() {}, error: (obj, msg) => errors.push(`${msg}: ${JSON.stringify(obj)}`) },
  });
  ended.push(() => r.close());
  return { r, link, locks, other, errors };
}

/**
 * The thread's turn at its gate; then every lock of the link's session, its incarnation's too, is
 * given back behind the link's back (the link still counts the thread's held, as when its session
 * ended unnoticed: what such a session held is all gone) and another instance takes the thread. The
 * gate opens and the turn is let run to its end.
 */
async function turnWhoseLockWasTaken(r: Rig, link: InstanceLink, locks: ThreadLocks, other: ThreadLocks) {
  await r.gateway.inject({ thread: T, text: "use wait_gate first", id: "m1" });
  await until(() => r.gates.calls.length === 1, "the turn at its gate");
  await link.query("SELECT pg_advisory_unlock_all()");
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

/** A plain connection to the link's database (node-postgres as the store loads it). */
async function storeClient(link: InstanceLink) {
  const [row] = await link.query<{ db: string }>("SELECT current_database() AS db");
  const url = new URL(server!.url);
  url.pathname = `/${row!.db}`;
  const pg = storePg() as unknown as {
    Client: new (c: {
      connectionString: string;
    }) => {
      connect(): Promise<void>;
      query(text: string, values?: unknown[]): Promise<unknown>;
      end(): Promise<void>;
    };
  };
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  ended.push(() => client.end());
  return client;
}

/** Sessions of the link's database waiting on a lock in a turn's end statement (asked on the link, outside a transaction). */
async function endWaiters(link: InstanceLink): Promise<number> {
  const rows = await link.query(
    "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%finished_at%'",
  );
  return rows.length;
}

/** The backend pids pg_locks shows holding the thread's lock. */
async function serverHolders(link: InstanceLink, locks: ThreadLocks): Promise<number[]> {
  const { key } = locks.heldLock(threadId);
  const rows = await link.query<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
      AND ((classid::int8 << 32) | objid::int8) = $1::bigint`,
    [key],
  );
  return rows.map((row) => row.pid);
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

  it("keeps the thread's lock on its session until the turn's end committed (its fence checks that session holds it): a look at the thread while the end statement waits lets nothing go", async () => {
    let announce: ((m: ClusterMessage) => Promise<void>) | undefined;
    /** The record's status each time the thread's lock was given back. */
    const atRelease: (string | undefined)[] = [];
    const { r, link, locks } = await instance({
      rig: { threadHoldMs: 0 },
      // The end statement waiting holds one connection, the look's read and the releases need others.
      pool: 4,
      wrap: (c) => {
        announce = (m) => c.publish(m);
        return {
          ...c,
          releaseThread: async (key) => {
            atRelease.push((await r.db.inbox.unfinished())[0]?.status ?? "done");
            return c.releaseThread(key);
          },
        };
      },
    });
    await r.gateway.inject({ thread: T, text: "use wait_gate first", id: "m1" });
    await until(() => r.gates.calls.length === 1, "the turn at its gate");
    // Another instance's read of the record under a row lock: the turn's end statement waits for it.
    const [record] = await r.db.inbox.unfinished();
    const reader = await storeClient(link);
    await reader.query("BEGIN");
    await reader.query('SELECT id FROM "inbox" WHERE id = $1 FOR UPDATE', [record!.id]);
    r.gates.openAll();
    await until(async () => (await endWaiters(link)) > 0, "the end statement waiting for the record");
    expect(atRelease).toEqual([]);
    // A look at the thread (an announcement of it): its change settles the thread, whose turn runs.
    const queued = r.db.inbox.queued.bind(r.db.inbox);
    let looked: Promise<unknown> | undefined;
    r.db.inbox.queued = (...args: Parameters<typeof queued>) => {
      const read = queued(...args);
      looked ??= read;
      return read;
    };
    await announce!({ kind: "thread", gateway: "mock", thread: T });
    await until(() => looked !== undefined, "the thread looked at");
    await looked;
    await new Promise((resolve) => setImmediate(resolve));
    expect(atRelease).toEqual([]);
    expect(await serverHolders(link, locks)).toEqual([link.backendPid]);
    await reader.query("COMMIT");
    await until(() => r.gateway.textsTo(T).length === 1, "the reply");
    await until(() => !locks.isHeld(threadId), "the thread let go");
    expect(atRelease).toEqual(["done"]);
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
