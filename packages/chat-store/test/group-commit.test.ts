import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { MAX_BATCH } from "../src/group-commit.js";
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
    const db = openStore({ path: "./chat.db" });
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

  it("a write on an idle store is not held back: it is answered before a 0 ms timer fires", async () => {
    const db = openStore({ path: "./chat.db" });
    await accept(db, -1);
    const order: string[] = [];
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        order.push("timer");
        resolve();
      }, 0),
    );
    await accept(db, 1);
    order.push("write");
    await timer;
    expect(order).toEqual(["write", "timer"]);
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
  it("power (the default) is synchronous FULL; process is NORMAL; anything else is refused at open", async () => {
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
