// What the cluster benches (cluster-cost.ts, cluster-idle.ts) read PostgreSQL with, for one
// configuration: a client on the server for its statistics (pg_stat_statements, pg_stat_activity)
// and one on the configuration's own database, the instances measured, and the wait until their
// messages are all answered. Each bench's probe adds its own readings.
import type { TestPostgres } from "@agentsvc/pg-test";
import type { ChildServer } from "./child-server.ts";
import { type PgClient, pgClient } from "./pg-client.ts";

export class ClusterProbe {
  protected readonly stats: PgClient;
  protected readonly db: PgClient;
  readonly pg: TestPostgres;
  readonly dbName: string;
  readonly servers: ChildServer[];

  constructor(pg: TestPostgres, dbName: string, dbUrl: string, servers: ChildServer[]) {
    this.pg = pg;
    this.dbName = dbName;
    this.servers = servers;
    this.stats = pgClient(pg.url);
    this.db = pgClient(dbUrl);
  }

  async open(): Promise<void> {
    await this.stats.connect();
    await this.db.connect();
  }

  /** The probe's own backends: left out of what a configuration is measured to cost. */
  protected ownPids(): number[] {
    return [this.stats.processID, this.db.processID].filter((p): p is number => p !== undefined);
  }

  /**
   * Every inbox record finished and every reply sent (its statement marked `bench_probe`, which
   * the statement counts leave out), then `settleMs` more (threads being let go).
   */
  async drained(settleMs = 0): Promise<void> {
    const busy = `SELECT (SELECT count(*) FROM inbox WHERE status IN ('queued', 'running'))
      + (SELECT count(*) FROM outbox WHERE status = 'pending') AS bench_probe`;
    for (const deadline = Date.now() + 300_000; Date.now() < deadline; ) {
      const { rows } = await this.db.query(busy);
      if (Number(rows[0]?.bench_probe) === 0) {
        await sleep(settleMs);
        return;
      }
      await sleep(100);
    }
    throw new Error("the gateway messages were not all answered within 300 s");
  }

  async close(): Promise<void> {
    await this.stats.end();
    await this.db.end();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
