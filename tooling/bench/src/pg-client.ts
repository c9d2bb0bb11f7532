// A plain node-postgres client for the bench's own statements (probes, setup), taken from
// store-postgres's dependency so the bench needs no copy of its own.
import { createRequire } from "node:module";

export interface PgClient {
  connect(): Promise<void>;
  /** A `name` makes it a named prepared statement, as store-postgres sends its reads. */
  query(
    text: string | { name?: string; text: string; values?: unknown[] },
    values?: unknown[],
  ): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
  processID?: number;
}

export function pgClient(url: string): PgClient {
  const pg = createRequire(import.meta.resolve("@agentsvc/store-postgres"))("pg") as {
    Client: new (config: { connectionString: string }) => PgClient;
  };
  return new pg.Client({ connectionString: url });
}
