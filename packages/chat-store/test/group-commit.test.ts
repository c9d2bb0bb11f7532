import { mkdtempSync, rmSync, stat } from "node:fs";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { GroupCommit, MAX_BATCH } from "../src/group-commit.js";
import { reuseStatements } from "../src/statement-cache.js";
import type { ChatDb } from "../src/index.js";
import { openStore } from "./helpers.js";

/** Frames in the store's WAL: every commit appends the pages it changed, so N commits write N times. */
function walFrames(db: ChatDb): number {
  const raw = new Database(db.file);
  try {
    const [row] = raw.pragma("wal_checkpoint(NOOP)") as { log: number }[];
    return row?.log ?? Number.NaN;
  } finally {
    raw.close();
  }
}

function accept(db: ChatDb, i: number) {
  return db.inbox.accept({
    gateway: "hooks",
    dedupKey: `e${i}`,
    thread: `t${i}`,
    text: `hello ${i}`,
    origin: { gateway: "hooks", thread: `t${i}` },
  });
}

/** A second connection: what is committed to the file, whatever the store's connection holds. */
function committedKeys(db: ChatDb): Set<string> {
  const raw = new Database(db.file, { readonly: true });
  try {
    return new Set(
      (raw.prepare("SELECT dedup_key FROM inbox").all() as { dedup_key: string }[]).map((r) => r.dedup_key),
    );
  } finally {
    raw.close();
  }
}

/**
 * Runs `fn` inside an I/O callback, as a request handler runs: from there Node runs the check
 * phase (setImmediate) before the next timers phase, whatever the machine's load.
 */
function inIoCallback<T>(fn: () => T): Promise<T> {
  return new Promise((resolve, reject) => stat(".", (error) => (error ? reject(error) : resolve(fn()))));
}

/**
 * Runs each of `fns` in an I/O callback of its own, all in one poll phase, as requests read
 * together: a byte written to each of several loopback connections in one tick is readable on all
 * of them at the loop's next poll, which reads every ready socket (Node runs the microtasks between
 * the callbacks). Two fs callbacks could run in two polls: their threads finish apart under load.
 */
async function inOnePollPhase<T>(fns: (() => T)[]): Promise<T[]> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const accepted: Socket[] = [];
  const allAccepted = new Promise<void>((resolve) =>
    server.on("connection", (socket) => {
      if (accepted.push(socket) === fns.length) resolve();
    }),
  );
  const { port } = server.address() as AddressInfo;
  const clients = await Promise.all(
    fns.map(
      () =>
        new Promise<Socket>((resolve, reject) => {
          const client = connect(port, "127.0.0.1", () => resolve(client));
          client.once("error", reject);
        }),
    ),
  );
  await allAccepted;
  try {
    const results = Promise.all(
      accepted.map((socket, i) => new Promise<T>((resolve) => socket.once("data", () => resolve(fns[i]!())))),
    );
    for (const client of clients) client.write("x");
    return await results;
  } finally {
    for (const client of clients) client.destroy();
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}

function zeroTimer(order: string[]): Promise<void> {
  return new Promise((resolve) =>
    setTimeout(() => {
      order.push("timer");
      resolve();
    }, 0),
  );
}

describe("group commit (SQLite)", () => {
  it("commits concurrent writes together: 100 accepts write the WAL about once, not 100 times", async () => {
    const db = openStore({ path: "./chat.db" });
    await accept(db, -1); // the first write on an idle store commits alone
    const before = walFrames(db);
    await Promise.all(Array.from({ length: 100 }, (_, i) => accept(db, i)));
    const frames = walFrames(db) - before;
    // One commit of 100 small rows changes a handful of pages (table + unique index + id index);
    // one commit per row rewrites them 100 times (>= 200 frames).
    expect(frames).toBeLessThan(30);
    expect(committedKeys(db).size).toBe(101);
  });

  it("a burst larger than one batch commits in slices of MAX_BATCH: the first callers are answered after the first slice", async () => {
    // durability process answers at COMMIT, so the first answer sees exactly the first slice (under
    // power the next slice may commit while the first one's sync runs).
    const db = openStore({ path: "./chat.db", durability: "process" });
    await accept(db, -1);
    let atFirstAnswer = 0;
    await Promise.all(
      Array.from({ length: MAX_BATCH * 2 + 10 }, (_, i) =>
        accept(db, i).then(() => {
          if (i === 0) atFirstAnswer = committedKeys(db).size;
        }),
      ),
    );
    expect(atFirstAnswer).toBe(1 + MAX_BATCH);
    expect(committedKeys(db).size).toBe(MAX_BATCH * 2 + 11);
  });

  it("answers each caller only once its own write is committed to the file", async () => {
    const db = openStore({ path: "./chat.db" });
    const seenAtAnswer: boolean[] = [];
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        accept(db, i).then(() => {
          // Synchronously at the answer: another connection must already see the row.
          seenAtAnswer.push(committedKeys(db).has(`e${i}`));
        }),
      ),
    );
    expect(seenAtAnswer).toHaveLength(60);
    expect(seenAtAnswer.every(Boolean)).toBe(true);
  });

  it("a failing transaction rolls back only itself; its neighbours in the same commit are kept", async () => {
    const db = openStore({ path: "./chat.db" });
    await accept(db, -1);
    const before = walFrames(db);
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        db.transaction(async () => {
          await accept(db, i);
          await db.preferences.set("u", `k${i}`, i);
          if (i % 7 === 3) throw new Error(`refused ${i}`);
          return i;
        }),
      ),
    );
    const failed = results.flatMap((r, i) => (r.status === "rejected" ? [i] : []));
    expect(failed).toEqual([3, 10, 17, 24, 31, 38, 45]);
    expect((results[3] as PromiseRejectedResult).reason).toEqual(new Error("refused 3"));
    expect((results[4] as PromiseFulfilledResult<number>).value).toBe(4);
    const keys = committedKeys(db);
    for (let i = 0; i < 50; i++) expect(keys.has(`e${i}`), `e${i}`).toBe(!failed.includes(i));
    const prefs = await db.preferences.getAll("u");
    expect(Object.keys(prefs)).toHaveLength(43);
    expect(prefs.k3).toBeUndefined();
    expect(walFrames(db) - before).toBeLessThan(40); // still grouped, not 50 commits
  });

  it("a transaction that read before its first write, and nested ones inside it, roll back exactly their own writes", async () => {
    const db = openStore({ path: "./chat.db" });
    await db.preferences.set("u", "seen", 1);
    // Read first, then a nested transaction writes and fails (caught), then the outer one writes.
    await db.transaction(async () => {
      await db.preferences.getAll("u");
      await db
        .transaction(async () => {
          await db.preferences.set("u", "inner-failed", 1);
          throw new Error("inner refused");
        })
        .catch(() => undefined);
      await db.transaction(async () => db.preferences.set("u", "inner-kept", 1));
      await db.preferences.set("u", "outer", 1);
    });
    // Read first, a nested transaction writes, then the outer one fails: both writes go.
    await expect(
      db.transaction(async () => {
        await db.preferences.getAll("u");
        await db.transaction(async () => db.preferences.set("u", "inner-of-failed", 1));
        throw new Error("outer refused");
      }),
    ).rejects.toThrow("outer refused");
    expect(Object.keys(await db.preferences.getAll("u")).sort()).toEqual(["inner-kept", "outer", "seen"]);
  });

  it("a write on an idle store is not held back: made while reading a request, it commits and its sync starts before a 0 ms timer fires", async () => {
    const order: string[] = [];
    const db = openStore({
      path: "./chat.db",
      flushWal: async () => {
        order.push("sync");
      },
    });
    await accept(db, -1);
    order.length = 0;
    const { timer, write } = await inIoCallback(() => ({
      timer: zeroTimer(order),
      write: accept(db, 1).then(() => void order.push("write")),
    }));
    await Promise.all([timer, write]);
    expect(order).toEqual(["sync", "write", "timer"]);
  });

  it("writes made while the same poll phase's requests are read share one physical transaction", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentsvc-group-"));
    const sqlite = new Database(join(dir, "g.db"));
    try {
      sqlite.exec("CREATE TABLE t (v TEXT)");
      // The group commit prepares its COMMIT once: its runs are the physical commits.
      let commits = 0;
      const prepare = sqlite.prepare.bind(sqlite);
      sqlite.prepare = ((source: string) => {
        const statement = prepare(source);
        if (source !== "COMMIT") return statement;
        const run = statement.run.bind(statement);
        return Object.assign(statement, {
          run: () => {
            commits++;
            return run();
          },
        });
      }) as typeof sqlite.prepare;
      const group = new GroupCommit(sqlite, { busyTimeoutMs: 1000, writes: reuseStatements(sqlite) });
      const insert = (v: string) =>
        group.run(async () => sqlite.prepare("INSERT INTO t VALUES (?)").run(v), true);
      // Two requests read in one poll phase, each callback making its write: a flush started in a
      // microtask would commit the first before the second callback ran.
      const writes: Promise<unknown>[] = [];
      await inOnePollPhase([() => writes.push(insert("a")), () => writes.push(insert("b"))]);
      await Promise.all(writes);
      expect(sqlite.prepare("SELECT v FROM t ORDER BY v").pluck().all()).toEqual(["a", "b"]);
      expect(commits).toBe(1);
    } finally {
      sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("durability process: a write on an idle store is answered before a 0 ms timer fires, and nothing syncs", async () => {
    let syncs = 0;
    const db = openStore({ path: "./chat.db", durability: "process", flushWal: async () => void syncs++ });
    await accept(db, -1);
    const order: string[] = [];
    const { timer, write } = await inIoCallback(() => ({
      timer: zeroTimer(order),
      write: accept(db, 1).then(() => void order.push("write")),
    }));
    await Promise.all([timer, write]);
    expect(order).toEqual(["write", "timer"]);
    expect(committedKeys(db)).toEqual(new Set(["e-1", "e1"]));
    expect(syncs).toBe(0);
  });

  it("nothing slips into an open transaction across an await: an outside write survives its rollback", async () => {
    const db = openStore({ path: "./chat.db" });
    let entered!: () => void;
    const inTransaction = new Promise<void>((resolve) => (entered = resolve));
    const inside = db.transaction(async () => {
      await accept(db, 1);
      entered();
      await new Promise((r) => setTimeout(r, 20));
      throw new Error("turn failed");
    });
    await inTransaction;
    const outside = accept(db, 2); // another caller: it waits until the transaction ended
    await expect(inside).rejects.toThrow("turn failed");
    await outside;
    expect([...committedKeys(db)]).toEqual(["e2"]);
  });

  it("a transaction still sees its own writes and the writes of earlier transactions in its batch", async () => {
    const db = openStore({ path: "./chat.db" });
    const [, seen] = await Promise.all([
      db.preferences.set("u", "a", 1),
      db.transaction(async () => {
        await db.preferences.set("u", "b", 2);
        return db.preferences.getAll("u");
      }),
    ]);
    expect(seen).toEqual({ a: 1, b: 2 });
  });
});

describe("store durability", () => {
  it("power (the default) or process; anything else is refused at open", async () => {
    expect(openStore({ path: "./a.db" }).durability).toBe("power");
    expect(openStore({ path: "./b.db", durability: "power" }).durability).toBe("power");
    const fast = openStore({ path: "./c.db", durability: "process" });
    expect(fast.durability).toBe("process");
    await accept(fast, 1);
    expect(committedKeys(fast).has("e1")).toBe(true);
    expect(() =>
      openStore({ path: "./d.db", durability: "fast" as never, source: "agentsvc.config.yaml" }),
    ).toThrow(/agentsvc.config.yaml: store.durability: must be power or process \(got "fast"\)/);
  });
});

/** Syncs the tests hold; released after each test so that closing the store never waits on one. */
const held: { release: () => void }[] = [];

/** An observable WAL sync: each records what was committed when it started and waits to be released. */
function heldSyncs(file: () => ChatDb) {
  const syncs: { covered: Set<string>; done: boolean; release: () => void }[] = [];
  const flushWal = async () => {
    const sync = { covered: committedKeys(file()), done: false, release: () => {} };
    await new Promise<void>((resolve) => {
      sync.release = resolve;
      syncs.push(sync);
      held.push(sync);
    });
    sync.done = true;
  };
  return { syncs, flushWal };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("group commit with durability power (WAL synced off the event loop)", () => {
  afterEach(() => {
    for (const sync of held.splice(0)) sync.release();
  });

  it("no writer is answered before a WAL sync that started after its COMMIT has finished", async () => {
    let db!: ChatDb;
    const { syncs, flushWal } = heldSyncs(() => db);
    db = openStore({ path: "./chat.db", flushWal });
    const answered: string[] = [];
    const uncovered: string[] = [];
    const writes = Array.from({ length: 60 }, (_, i) =>
      accept(db, i).then(() => {
        answered.push(`e${i}`);
        // Synchronously at the answer: a finished sync must have covered this caller's row.
        if (!syncs.some((s) => s.done && s.covered.has(`e${i}`))) uncovered.push(`e${i}`);
      }),
    );
    while (syncs.length === 0) await turn();
    // Committed (another connection sees the rows), but the sync is held: nobody is answered.
    expect(committedKeys(db).size).toBe(60);
    for (let i = 0; i < 20; i++) await turn();
    expect(answered).toEqual([]);
    // More writes while the first sync runs: they commit, and wait for a sync that starts later.
    const late = Array.from({ length: 10 }, (_, i) =>
      accept(db, 100 + i).then(() => {
        answered.push(`e${100 + i}`);
        if (!syncs.some((s) => s.done && s.covered.has(`e${100 + i}`))) uncovered.push(`e${100 + i}`);
      }),
    );
    for (let i = 0; i < 20; i++) await turn();
    expect(committedKeys(db).size).toBe(70);
    expect(syncs).toHaveLength(1); // the second sync waits for the first to end
    syncs[0]?.release();
    await Promise.all(writes);
    for (let i = 0; i < 20; i++) await turn();
    // The first sync may have started before the late COMMIT: the late writers wait for the next one.
    expect(answered).toHaveLength(60);
    expect(uncovered).toEqual([]);
    expect(syncs).toHaveLength(2);
    syncs[1]?.release();
    await Promise.all(late);
    expect(answered).toHaveLength(70);
    expect(uncovered).toEqual([]);
  });

  it("every memory append (a turn's messages) is answered only after a WAL sync that started after its COMMIT", async () => {
    let db!: ChatDb;
    const { syncs, flushWal } = heldSyncs(() => db);
    db = openStore({ path: "./chat.db", flushWal });
    const memory = db.createMemory({ canSummarize: false });
    const scope = { userId: "u", conversationId: "c" };
    const turnMessages = [
      { role: "user" as const, content: "hi" },
      { role: "assistant" as const, content: "hello" },
    ];
    // Twice: the second append runs the statement the first one prepared.
    for (const n of [1, 2]) {
      let answered = false;
      const append = memory.append(scope, turnMessages).then(() => (answered = true));
      // Its write asks for a sync (waited for up to 5 s, not timed: a loaded machine is slow).
      for (const until = Date.now() + 5000; syncs.length < n && Date.now() < until; ) await turn();
      expect(syncs).toHaveLength(n);
      for (let i = 0; i < 20; i++) await turn();
      expect(answered).toBe(false);
      syncs[n - 1]?.release();
      await append;
    }
    expect(await memory.load(scope)).toHaveLength(4);
  });

  it("a read is answered while someone else's sync is pending", async () => {
    let db!: ChatDb;
    const { syncs, flushWal } = heldSyncs(() => db);
    db = openStore({ path: "./chat.db", flushWal });
    let written = false;
    const write = db.preferences.set("u", "a", 1).then(() => (written = true));
    while (syncs.length === 0) await turn();
    // The read runs on the same connection right away; it sees the committed row.
    expect(await db.preferences.get("u", "a")).toBe(1);
    expect(await db.conversations.get("nope")).toBeUndefined();
    expect(written).toBe(false);
    syncs[0]?.release();
    await write;
    expect(written).toBe(true);
  });

  it("a failed WAL sync fails its writers and every later write; reads still answer", async () => {
    const eio = Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
    const db = openStore({
      path: "./chat.db",
      flushWal: async () => {
        throw eio;
      },
    });
    const results = await Promise.allSettled([accept(db, 1), accept(db, 2)]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect((results[0] as PromiseRejectedResult).reason).toBe(eio);
    await expect(db.preferences.set("u", "a", 1)).rejects.toBe(eio);
    expect(await db.preferences.get("u", "nothing")).toBeUndefined();
  });
});
