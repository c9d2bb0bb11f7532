import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { postgresBinDir, postgresMissing, startPostgres } from "../src/index.js";

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
});
