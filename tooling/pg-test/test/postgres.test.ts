import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { postgresBinDir, postgresMissing, startPostgres, usePostgres } from "../src/index.js";

describe.skipIf(postgresMissing)("startPostgres", () => {
  it("serves SQL on a loopback port and is gone after stop", async () => {
    const pg = await startPostgres();
    const psql = join(postgresBinDir()!, "psql");
    const ask = (url: string, q: string) =>
      execFileSync(psql, [url, "-tAc", q], { stdio: "pipe" }).toString().trim();
    try {
      expect(ask(pg.url, "select 40 + 2")).toBe("42");
      const url = await pg.createDatabase();
      expect(ask(url, "select current_database()")).toMatch(/^t\d+_1_/);
    } finally {
      await pg.stop();
    }
    expect(() => ask(pg.url, "select 1")).toThrow();
  }, 30_000);

  it("lends a running server to another user: its databases are made and dropped, its stop leaves the server up", async () => {
    const pg = await startPostgres();
    const psql = join(postgresBinDir()!, "psql");
    const ask = (url: string, q: string) =>
      execFileSync(psql, [url, "-tAc", q], { stdio: "pipe" }).toString().trim();
    const databases = () => ask(pg.url, "select count(*) from pg_database");
    try {
      const lent = usePostgres({ port: pg.port, dataDir: pg.dataDir });
      const before = databases();
      const url = await lent.createDatabase();
      const name = url.split("/").pop()!;
      const copy = await lent.createDatabase(undefined, { template: name });
      expect(ask(copy, "select 40 + 2")).toBe("42");
      expect(Number(databases())).toBe(Number(before) + 2);
      await lent.dropDatabases([name, copy.split("/").pop()!]);
      expect(databases()).toBe(before);
      await lent.stop();
      expect(ask(pg.url, "select 1")).toBe("1");
    } finally {
      await pg.stop();
    }
  }, 30_000);
});
