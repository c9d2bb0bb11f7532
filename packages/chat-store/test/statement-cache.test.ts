import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_STATEMENTS, reuseStatements } from "../src/statement-cache.js";
import { tempRoot } from "./helpers.js";

const connections: Database.Database[] = [];
afterEach(() => {
  for (const c of connections.splice(0)) c.close();
});

/** A real SQLite file with a small table, its prepare wrapped. */
function connection() {
  const sqlite = new Database(join(tempRoot(), "cache.db"));
  connections.push(sqlite);
  sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  sqlite.exec("INSERT INTO t (v) VALUES ('a'), ('b')");
  const writes = reuseStatements(sqlite);
  return { sqlite, writes };
}

describe("prepared statements reused by SQL text (SQLite)", () => {
  it("the same text prepared again is the statement prepared before", () => {
    const { sqlite } = connection();
    const first = sqlite.prepare("SELECT v FROM t WHERE id = ?");
    expect(sqlite.prepare("SELECT v FROM t WHERE id = ?")).toBe(first);
    expect(sqlite.prepare("SELECT v FROM t WHERE id = ? + 0")).not.toBe(first);
  });

  it("a reader left in raw mode (drizzle's values) answers rows as objects when handed out again", () => {
    const { sqlite } = connection();
    expect(sqlite.prepare("SELECT id, v FROM t ORDER BY id").raw().all()).toEqual([
      [1, "a"],
      [2, "b"],
    ]);
    expect(sqlite.prepare("SELECT id, v FROM t ORDER BY id").all()).toEqual([
      { id: 1, v: "a" },
      { id: 2, v: "b" },
    ]);
  });

  it("a statement still being iterated is not handed out: its text prepares a statement of its own", () => {
    const { sqlite } = connection();
    const text = "SELECT v FROM t ORDER BY id";
    const iterating = sqlite.prepare(text);
    const rows = iterating.iterate();
    expect(rows.next().value).toEqual({ v: "a" });
    const other = sqlite.prepare(text);
    expect(other).not.toBe(iterating);
    expect(other.all()).toEqual([{ v: "a" }, { v: "b" }]);
    expect(rows.next().value).toEqual({ v: "b" });
    rows.return?.();
  });

  it("counts every hand-out of a statement that can write, cached or new; reads do not count", () => {
    const { sqlite, writes } = connection();
    const insert = "INSERT INTO t (v) VALUES (?) ON CONFLICT DO NOTHING";
    sqlite.prepare("SELECT count(*) FROM t").get();
    expect(writes()).toBe(0);
    sqlite.prepare(insert).run("c");
    sqlite.prepare(insert).run("d");
    sqlite.prepare("SELECT count(*) FROM t").get();
    expect(writes()).toBe(2);
  });

  it(`keeps at most ${MAX_STATEMENTS} statements: the least recently used is prepared anew`, () => {
    const { sqlite } = connection();
    const text = (i: number) => `SELECT ${i} AS n`;
    const oldest = sqlite.prepare(text(0));
    const recent = sqlite.prepare(text(1));
    for (let i = 2; i <= MAX_STATEMENTS; i++) {
      sqlite.prepare(text(i));
      sqlite.prepare(text(1)); // used again: stays
    }
    expect(sqlite.prepare(text(1))).toBe(recent);
    const again = sqlite.prepare(text(0));
    expect(again).not.toBe(oldest);
    expect(again.get()).toEqual({ n: 0 });
  });
});
