// Preloaded (`--import`) into a bench server to count the SQLite statements it runs: every run/get/
// all/iterate of a prepared statement and every exec, by SQL text. SIGUSR2 starts the count afresh
// (the bench sends it once the server is up, as for loop-delay.ts); SIGTERM writes it to
// BENCH_SQLITE_COUNT_FILE. Counting costs CPU, so the bench counts in a round of its own.
import { writeFileSync } from "node:fs";
import Database from "better-sqlite3";

const file = process.env.BENCH_SQLITE_COUNT_FILE;
if (file) {
  let counts = new Map<string, number>();
  const count = (sql: string) => counts.set(sql, (counts.get(sql) ?? 0) + 1);
  const probe = new Database(":memory:");
  const statement = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<string, unknown>;
  probe.close();
  for (const method of ["run", "get", "all", "iterate"]) {
    const original = statement[method] as (...args: unknown[]) => unknown;
    statement[method] = function (this: { source: string }, ...args: unknown[]) {
      count(this.source);
      return original.apply(this, args);
    };
  }
  const database = Database.prototype as unknown as { exec: (sql: string) => unknown };
  const exec = database.exec;
  database.exec = function (this: unknown, sql: string) {
    count(sql);
    return exec.call(this, sql);
  };
  process.on("SIGUSR2", () => {
    counts = new Map();
  });
  process.prependListener("SIGTERM", () => {
    writeFileSync(file, JSON.stringify(Object.fromEntries(counts)));
  });
}
