// A ChatDb on PostgreSQL: the same tables and behaviour as on SQLite, over a pool that several
// instances of one project share. @agentsvc/store-postgres (schema, migrations, connection) is
// loaded only here, so a project on SQLite never installs a PostgreSQL driver.
import type { Datasource } from "@agentsvc/config-schema";
import { PoolHealth, poolDriver, type StoreOptions } from "./backend.js";
import { ChatDb } from "./chat-db.js";
import { ChatDbError, describeError } from "./errors.js";

export interface OpenPostgresOptions extends StoreOptions {
  /** The datasource's name in `datasources`. */
  name: string;
  datasource: Extract<Datasource, { type: "postgres" }>;
  /** The project root (a relative `sslCaFile` is resolved against it). */
  appRoot: string;
  /** Where `urlEnvVar` is read. Default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Config file the datasource is declared in, for messages. */
  source?: string;
  logger?: { info(obj: object, msg: string): void; warn?(obj: object, msg: string): void };
}

/** Connects, migrates (once across instances booting together) and returns the store. */
export async function openPostgresChatDb(options: OpenPostgresOptions): Promise<ChatDb> {
  let module: typeof import("@agentsvc/store-postgres");
  try {
    module = await import("@agentsvc/store-postgres");
  } catch (err) {
    throw new ChatDbError(
      "driver_missing",
      `${options.source ?? "agentsvc.config"}: datasources.${options.name}: a postgres datasource needs the ` +
        `@agentsvc/store-postgres package (npm install @agentsvc/store-postgres): ${describeError(err)}`,
      { cause: err },
    );
  }
  // Loaded here, not at the top: a project on SQLite never loads drizzle's pg-core.
  const { pgTablesAsQueryTables } = await import("@agentsvc/store-schema/postgres");
  const pg = await module.connectDatasource({
    name: options.name,
    datasource: options.datasource,
    appRoot: options.appRoot,
    ...(options.env ? { env: options.env } : {}),
    ...(options.source ? { source: options.source } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.now ? { now: options.now } : {}),
    // Grouped inbox accepts run one statement at a time: on a connection of their own they never
    // queue behind turns' statements, so a burst is recorded (and answered) while turns wait.
    express: true,
  });
  return ChatDb.fromBackend(
    {
      dialect: "postgres",
      location: pg.target,
      datasource: options.name,
      migration: pg.migration,
      // Same property and column names as the SQLite tables (store-schema's tests hold them to it).
      tables: pgTablesAsQueryTables,
      driver: poolDriver(pg.db, pg.express),
      health: new PoolHealth(options.now),
      schemaVersion: () => pg.migration.to,
      close: () => pg.close(),
    },
    options,
  );
}
