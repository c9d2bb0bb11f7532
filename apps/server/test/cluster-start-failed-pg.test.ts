// A cluster start that fails after its link connected leaves no connection open: compose registers
// the coordination for closing only once pgCoordination returns, so before, a LISTEN refused after
// the connect left the link's session (a connection slot, and its incarnation lock) open until the
// process ended. On a real PostgreSQL, the link's sessions counted in pg_stat_activity by its name.
// A primary refuses nothing the start sends once the link is open; a replica does: a datasource
// pointed at a hot standby opens the link (its session and incarnation lock are allowed there) and
// then has the bus's LISTEN refused. The test server is such a standby (pg-test `standby`).
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { connectPostgres } from "@agentsvc/store-postgres";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgCoordination } from "../src/cluster/pg-coordination.js";

/** Sessions named as the cluster link on the database of `url`. */
async function linkSessions(url: string): Promise<number> {
  const observer = await connectPostgres({ connectionString: url, migrate: false, max: 1 });
  try {
    const { rows } = await observer.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE application_name = 'agentsvc-cluster' AND datname = current_database()`,
    );
    return rows[0]?.n ?? -1;
  } finally {
    await observer.close();
  }
}

describe.skipIf(postgresMissing)("a cluster start on a primary", () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("a start that succeeds holds one agentsvc-cluster session, closed by close()", async () => {
    const url = await server.createDatabase();
    const coordination = await pgCoordination({ connectionString: url, logger: pino({ level: "silent" }) });
    try {
      expect(await linkSessions(url)).toBe(1);
    } finally {
      await coordination.close();
    }
    expect(await linkSessions(url)).toBe(0);
  });
});

describe.skipIf(postgresMissing)(
  "a cluster start that fails after the link connected: a hot standby's URL",
  () => {
    let standby: TestPostgres;
    beforeAll(async () => {
      standby = await startPostgres({ standby: true });
    }, 60_000);
    afterAll(async () => {
      await standby?.stop();
    });

    it("rejects with the LISTEN's refusal and leaves no agentsvc-cluster session open", async () => {
      const start = pgCoordination({ connectionString: standby.url, logger: pino({ level: "silent" }) });
      await expect(start).rejects.toThrow("cannot execute LISTEN during recovery");
      expect(await linkSessions(standby.url)).toBe(0);
    });
  },
);
