// outbox_heads (store step 13) holds each thread's oldest pending piece, kept by triggers on outbox.
// What the due read returns must stay what "the oldest pending piece of each thread" means through
// every way a piece enters or leaves pending, and on PostgreSQL when a piece is enqueued while
// another transaction moves the thread's head.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { type ChatDb, MIGRATIONS } from "../src/index.js";
import { clock, eachDriver, openStore, postgresDriver, postgresUrlOf, tempRoot } from "./helpers.js";
import { storePg } from "./pg-statements.js";

const piece = (thread: string, key: string) => ({
  gateway: "telegram",
  thread,
  idemKey: key,
  kind: "text" as const,
  payload: { text: key },
});

/** The idempotency keys of the pieces due at `at`, in the order the due read returns them. */
const dueKeys = async (db: ChatDb, at: number) => (await db.outbox.due(at)).map((r) => r.idemKey);

/** A promise and the function that resolves it. */
function signal(): { wait: Promise<void>; give: () => void } {
  let give!: () => void;
  const wait = new Promise<void>((resolve) => {
    give = resolve;
  });
  return { wait, give };
}

eachDriver((driver) => {
  describe("outbox thread heads", () => {
    it("a dead piece put back in the queue heads its thread again, before the pieces written after it", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      const [a] = await db.outbox.enqueue([piece("t1", "a"), piece("t1", "b")]);
      await db.outbox.markDead(a as number, "403");
      expect(await dueKeys(db, t.now())).toEqual(["b"]);
      expect(await db.outbox.requeue(a as number)).toBe(true);
      expect(await dueKeys(db, t.now())).toEqual(["a"]);
    });

    it("a dropped head lets the thread's next piece go, and the last one dropped empties the thread", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      const [a, b] = await db.outbox.enqueue([piece("t1", "a"), piece("t1", "b")]);
      expect(await db.outbox.drop(a as number)).toBe(true);
      expect(await dueKeys(db, t.now())).toEqual(["b"]);
      expect(await db.outbox.drop(b as number)).toBe(true);
      expect(await db.outbox.due(t.now())).toEqual([]);
      expect(await db.outbox.nextDueAt()).toBeUndefined();
    });

    it("a head's retry time is the thread's due time; a later piece's own time does not count", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      const [a] = await db.outbox.enqueue([
        piece("t1", "a"),
        { ...piece("t1", "b"), notBefore: t.now() - 50 },
      ]);
      await db.outbox.markRetry(a as number, t.now() + 500, "429");
      expect(await db.outbox.nextDueAt()).toBe(t.now() + 500);
      expect(await db.outbox.due(t.now())).toEqual([]);
    });

    it("a rolled-back enqueue leaves no head behind", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      await expect(
        db.transaction(async () => {
          await db.outbox.enqueue([piece("t1", "a")]);
          throw new Error("crash before commit");
        }),
      ).rejects.toThrow("crash before commit");
      expect(await db.outbox.nextDueAt()).toBeUndefined();
    });
  });
});

describe("[sqlite] outbox thread heads after the upgrade to step 13", () => {
  it("a store with pending pieces from before step 13 has each thread's oldest one as its head", async () => {
    const appRoot = tempRoot();
    const before = openStore({ appRoot, migrations: MIGRATIONS.filter((m) => m.version < 13) });
    before.close();
    const raw = new Database(before.file);
    try {
      const insert = raw.prepare(
        `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, attempts, next_attempt_at, created_at)
         VALUES ('telegram', ?, ?, 'text', '{}', ?, 0, 0, 0)`,
      );
      insert.run("t1", "a", "sent");
      insert.run("t1", "b", "pending");
      insert.run("t1", "c", "pending");
      insert.run("t2", "d", "pending");
    } finally {
      raw.close();
    }
    const db = openStore({ appRoot });
    expect(await dueKeys(db, 1)).toEqual(["b", "d"]);
  });
});

describe.skipIf(postgresDriver.missing)("[postgres] outbox thread heads under concurrent writers", () => {
  /** Resolves once a backend of `url` is waiting for a row lock (the other writer holds the head). */
  async function someoneWaitsForALock(url: string): Promise<void> {
    const client = new (storePg().Client)({ connectionString: url });
    await client.connect();
    try {
      for (;;) {
        const { rows } = await client.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        if ((rows[0] as { n: number }).n > 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await client.end();
    }
  }

  /**
   * Runs `inside` in a transaction kept open, then `outside` on its own; once `outside` waits for a
   * row lock the transaction holds, commits the transaction and returns what `outside` gave.
   */
  async function blockedBehind<T>(
    db: ChatDb,
    appRoot: string,
    inside: () => Promise<void>,
    outside: () => Promise<T>,
  ): Promise<T> {
    const entered = signal();
    const held = signal();
    const transaction = db.transaction(async () => {
      await inside();
      entered.give();
      await held.wait;
    });
    await entered.wait;
    const result = outside();
    await someoneWaitsForALock(await postgresUrlOf(appRoot));
    held.give();
    await transaction;
    return result;
  }

  it("a piece enqueued while its thread's head is being sent is due once both commit (enqueue first)", async () => {
    const appRoot = tempRoot();
    const db = await postgresDriver.open({ appRoot });
    const [a] = await db.outbox.enqueue([piece("t1", "a")]);
    // The head's update waits for the writer's lock on the thread's head, then sees its piece.
    const sent = await blockedBehind(
      db,
      appRoot,
      async () => void (await db.outbox.enqueue([piece("t1", "b")])),
      () => db.outbox.markSent(a as number, "m-1"),
    );
    expect(sent).toBe(true);
    expect(await dueKeys(db, Date.now() + 1000)).toEqual(["b"]);
  }, 30_000);

  it("a piece enqueued while its thread's last head is being sent is due once both commit (send first)", async () => {
    const appRoot = tempRoot();
    const db = await postgresDriver.open({ appRoot });
    const [a] = await db.outbox.enqueue([piece("t1", "a")]);
    // The sender removed the thread's head row and holds it: the enqueue waits, then writes a new one.
    const enqueued = await blockedBehind(
      db,
      appRoot,
      async () => expect(await db.outbox.markSent(a as number, "m-1")).toBe(true),
      () => db.outbox.enqueue([piece("t1", "b")]),
    );
    expect(enqueued).toHaveLength(1);
    expect(await dueKeys(db, Date.now() + 1000)).toEqual(["b"]);
  }, 30_000);
});
