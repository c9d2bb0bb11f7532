// Three instances' coordinations at rest over one PostgreSQL (#45.3): the leader's heartbeat keeps
// the others from trying the leader lock, so at rest their links send no lock statement (before,
// each tried every 5 s: 24 a minute on three). Counted by pg_stat_statements on a real server.
import { InstanceLink } from "@agentsvc/pg-cluster";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PgCoordination, pgCoordination } from "../src/cluster/pg-coordination.js";

const HEARTBEAT_MS = 200;
const RETRY_MS = 800;
const WINDOW_MS = 3_000;

describe.skipIf(postgresMissing)("three coordinations at rest", () => {
  let pg: TestPostgres;
  let url: string;
  beforeAll(async () => {
    pg = await startPostgres({ settings: ["shared_preload_libraries = 'pg_stat_statements'"] });
    url = await pg.createDatabase();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it("send no lock statement while the leader lives: the others hear its heartbeat instead", async () => {
    // The bench's probe: a connection of its own, its statements left out by text.
    const stats = new InstanceLink({ connectionString: url, healthCheckMs: 0 });
    await stats.connect();
    const coordinations: PgCoordination[] = [];
    try {
      await stats.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      const leading: number[] = [];
      for (let i = 0; i < 3; i++) {
        const c = await pgCoordination({
          connectionString: url,
          logger: pino({ level: "silent" }),
          leaderRetryMs: RETRY_MS,
          leaderHeartbeatMs: HEARTBEAT_MS,
        });
        coordinations.push(c);
        c.lead("session", { onLead: () => void leading.push(i), onLose: () => undefined });
      }
      for (let i = 0; i < 250 && leading.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(leading).toHaveLength(1);
      // Every first try answered: the others' next ones are a retry away.
      await new Promise((r) => setTimeout(r, 100));
      await stats.query("SELECT pg_stat_statements_reset()");
      await new Promise((r) => setTimeout(r, WINDOW_MS));
      const rows = await stats.query<{ query: string; calls: string }>(
        `SELECT s.query, s.calls::text FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
          WHERE d.datname = current_database() AND s.query NOT LIKE '%pg_stat_statements%'`,
      );
      const calls = (match: string) =>
        rows.filter((r) => r.query.includes(match)).reduce((n, r) => n + Number(r.calls), 0);
      // Without the heartbeat: two instances trying every 600-1000 ms, 6 to 10 here.
      expect(calls("pg_try_advisory_lock")).toBe(0);
      expect(calls("pg_notify")).toBeGreaterThan(0);
      expect(leading).toHaveLength(1);
    } finally {
      for (const c of coordinations) await c.close();
      await stats.close();
    }
  }, 30_000);
});
