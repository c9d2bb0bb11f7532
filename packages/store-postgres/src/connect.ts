// connectPostgres: one node-postgres pool per datasource, checked and migrated before it is handed
// out. Every failure a person will read names the datasource and the fix and never the password.
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { ConnectionOptions } from "node:tls";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { Pool, PoolClient, PoolConfig } from "pg";
import { describeError, PostgresStoreError } from "./errors.js";
import {
  DEFAULT_MIGRATION_TIMEOUT_MS,
  type MigrationReport,
  type MigrationStep,
  readSchemaVersion,
  runMigrations,
} from "./migrations.js";
import { namingClient } from "./named-statements.js";
import { loadDrizzlePg, loadPg } from "./orm.js";
import { redactConnectionString, scrub, secretsOf } from "./redact.js";
import { type PgTables, pgTables } from "@agentsvc/store-schema/postgres";

/** `off`: plain TCP. `require`: TLS, certificate not checked. `verify-full`: TLS, certificate chain and host name checked. */
export type PostgresSslMode = "off" | "require" | "verify-full";

export const SSL_MODES: readonly PostgresSslMode[] = ["off", "require", "verify-full"];
export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_APPLICATION_NAME = "agentsvc";
/**
 * An idle pooled connection is ended after this long. Ending one costs PostgreSQL 5-14 ms of CPU
 * (the backend's exit, measured on the bench machine) and reopening it a sign-in and its prepared
 * statements again: at 30 s, every gap in traffic longer than that paid both for each connection a
 * burst opened (as pgbouncer's server_idle_timeout and HikariCP's idleTimeout, 10 minutes).
 */
const DEFAULT_IDLE_TIMEOUT_MS = 600_000;
/**
 * TCP keepalive on pooled connections after this long idle: a connection kept minutes through a
 * load balancer or NAT that forgets idle flows (4-6 minutes on the large clouds) stays known.
 */
const KEEPALIVE_DELAY_MS = 60_000;
/**
 * Sent on every pooled connection once it is open: a named statement is planned for its parameters
 * at every run, never kept as a generic plan. A generic plan is made once per connection on the
 * statistics of its sixth run and kept until the table's next ANALYZE: on a fresh database (a
 * deployment's, a bench's first minute) that was a seq scan of inbox or outbox for the lookups by
 * `id = ANY($n)`, 10-18 ms a call as the tables grew (#45.2). A custom plan sees the table's current
 * size (its page count is read at planning). A statement, not the startup packet's `options`:
 * PgBouncer 1.20 and later refuse a connection whose `options` set a parameter it does not track.
 */
const CUSTOM_PLANS = "SET plan_cache_mode = force_custom_plan";

export interface PostgresLogger {
  info(obj: object, msg: string): void;
  warn?(obj: object, msg: string): void;
}

export interface ConnectPostgresOptions {
  /** `postgres://user:password@host:port/database` (or `postgresql://`). */
  connectionString: string;
  /** Datasource name for messages. Default `postgres`. */
  datasource?: string;
  /** Config file the datasource is declared in; prefixes messages (`agentsvc.config.yaml: datasources.main: ...`). */
  source?: string;
  /** The environment variable the connection string came from, named in messages ("check ... in DATABASE_URL"). */
  urlEnvVar?: string;
  /** Pool size (`max` connections this process opens). Default 10. */
  max?: number;
  /**
   * TLS. Default: the connection string's `sslmode` when it has one, else `off` for a loopback host
   * (localhost, 127.0.0.1, ::1) and `verify-full` for any other host.
   */
  ssl?: PostgresSslMode;
  /** PEM file of the CA that signed the server certificate (verify-full only); relative to `appRoot`. */
  sslCaFile?: string;
  /** Where a relative `sslCaFile` is resolved. Default the working directory. */
  appRoot?: string;
  /** `application_name` shown in pg_stat_activity. Default `agentsvc`. */
  applicationName?: string;
  /** `statement_timeout` of every pooled connection, in ms. Default: the server's setting. */
  statementTimeoutMs?: number;
  /** Bound on opening one connection (TCP, TLS and sign-in), in ms. Default 10,000. */
  connectTimeoutMs?: number;
  /** How long an idle pooled connection is kept, in ms (0: kept until close). Default 600,000 (10 minutes). */
  idleTimeoutMs?: number;
  /**
   * Keep one of the `max` connections for `express` (when `max` >= 2): statements that must not
   * wait behind the pool's queue. Default false (`express` is then the pool's drizzle).
   */
  express?: boolean;
  /** Apply pending migrations (under the advisory lock) before returning. Default true. */
  migrate?: boolean;
  /** Bound on the migration transaction, lock wait included, in ms. Default 300,000. */
  migrationTimeoutMs?: number;
  /** One line per applied migration step; idle-connection errors go to `warn`. */
  logger?: PostgresLogger;
  /** Clock in ms since the epoch (tests inject one). Default Date.now. */
  now?: () => number;
  /** @internal tests: other migration steps. */
  migrations?: readonly MigrationStep[];
}

export type PostgresDb = NodePgDatabase & { $client: Pool };

export interface PostgresStore {
  readonly datasource: string;
  /** The connection string with its password replaced by `***`. */
  readonly target: string;
  readonly pool: Pool;
  /** drizzle over the pool (`drizzle-orm/node-postgres`). */
  readonly db: PostgresDb;
  /**
   * drizzle over the connection kept apart with `express: true` (else the same as `db`): one
   * statement at a time, never queued behind the pool's (chat-store's grouped inbox accepts).
   */
  readonly express: PostgresDb;
  readonly tables: PgTables;
  /** What connecting did to the schema (`applied` is empty when another instance migrated first). */
  readonly migration: MigrationReport;
  /** The highest applied migration step. */
  schemaVersion(): Promise<number>;
  /** Ends the pool (waits for checked-out connections to be released). Safe to call twice. */
  close(): Promise<void>;
}

// URL.hostname keeps an IPv6 address in its brackets.
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
const TLS_PARAMS = [
  "sslmode",
  "ssl",
  "sslrootcert",
  "sslcert",
  "sslkey",
  "sslpassword",
  "sslnegotiation",
  "uselibpqcompat",
];

interface Ctx {
  label: string;
  target: string;
  urlWhere: string;
  secrets: string[];
  connectTimeoutMs: number;
}

function labelOf(options: ConnectPostgresOptions, name: string): string {
  return options.source ? `${options.source}: datasources.${name}` : `datasource "${name}"`;
}

function positiveInt(value: number | undefined, key: string, label: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < min) {
    throw new PostgresStoreError(
      "invalid_options",
      `${label}: ${key} must be an integer >= ${min} (got ${value})`,
    );
  }
  return value;
}

function urlSslMode(url: URL, ctx: Pick<Ctx, "label" | "urlWhere">): PostgresSslMode | undefined {
  const raw = url.searchParams.get("sslmode") ?? (url.searchParams.get("ssl") === "true" ? "require" : null);
  if (raw === null) return undefined;
  switch (raw) {
    case "disable":
      return "off";
    case "require":
    case "no-verify":
      return "require";
    case "verify-ca":
    case "verify-full":
      return "verify-full";
    default:
      throw new PostgresStoreError(
        "invalid_options",
        `${ctx.label}: sslmode=${raw} in ${ctx.urlWhere} is not supported (node-postgres cannot fall back between TLS and plain TCP): ` +
          `use sslmode=disable, require or verify-full, or set ssl: off | require | verify-full on the datasource`,
      );
  }
}

interface Resolved {
  config: PoolConfig;
  ctx: Ctx;
  ssl: PostgresSslMode;
}

/** Validates the options and builds the pool config; throws `invalid_options` naming what to fix. */
export function resolvePoolConfig(options: ConnectPostgresOptions): Resolved {
  const name = options.datasource ?? "postgres";
  const label = labelOf(options, name);
  const urlWhere = options.urlEnvVar ?? "the connection string";
  const secrets = secretsOf(options.connectionString);
  let url: URL;
  try {
    url = new URL(options.connectionString);
    if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") throw new Error("scheme");
  } catch {
    throw new PostgresStoreError(
      "invalid_options",
      `${label}: ${urlWhere} must hold a postgres://user:password@host:port/database URL (its value is not shown)`,
    );
  }
  const target = redactConnectionString(options.connectionString);
  const host = url.hostname || "localhost";
  const partial = { label, urlWhere };

  for (const p of ["sslcert", "sslkey"]) {
    if (url.searchParams.has(p)) {
      throw new PostgresStoreError(
        "invalid_options",
        `${label}: ${p} in ${urlWhere}: client certificates are not supported; remove it (sign in with a password)`,
      );
    }
  }
  const fromUrl = urlSslMode(url, partial);
  if (options.ssl !== undefined && !SSL_MODES.includes(options.ssl)) {
    throw new PostgresStoreError(
      "invalid_options",
      `${label}: ssl must be one of ${SSL_MODES.join(", ")} (got ${JSON.stringify(options.ssl)})`,
    );
  }
  if (options.ssl && fromUrl && options.ssl !== fromUrl) {
    throw new PostgresStoreError(
      "invalid_options",
      `${label}: ssl is "${options.ssl}" but ${urlWhere} asks for sslmode=${url.searchParams.get("sslmode") ?? "require"}; ` +
        `remove sslmode from the URL or make the two agree`,
    );
  }
  const ssl: PostgresSslMode = options.ssl ?? fromUrl ?? (LOOPBACK.has(host) ? "off" : "verify-full");
  const caFile = options.sslCaFile ?? url.searchParams.get("sslrootcert") ?? undefined;
  if (caFile !== undefined && ssl !== "verify-full") {
    throw new PostgresStoreError(
      "invalid_options",
      `${label}: sslCaFile is only used with ssl: verify-full (ssl is "${ssl}"); remove it or set ssl: verify-full`,
    );
  }
  let tls: false | ConnectionOptions = false;
  if (ssl === "require") tls = { rejectUnauthorized: false };
  if (ssl === "verify-full") {
    tls = { rejectUnauthorized: true };
    if (caFile !== undefined) {
      const file = isAbsolute(caFile) ? caFile : resolve(options.appRoot ?? process.cwd(), caFile);
      try {
        tls.ca = readFileSync(file, "utf8");
      } catch (err) {
        throw new PostgresStoreError(
          "invalid_options",
          `${label}: sslCaFile: cannot read ${file} (${describeError(err)}); it must be the PEM file of the CA that signed the server certificate`,
          { cause: err },
        );
      }
    }
  }
  // TLS is decided above, from the options: node-postgres would otherwise let URL parameters win.
  for (const p of TLS_PARAMS) url.searchParams.delete(p);
  // A plan_cache_mode of the URL's own `options` (sent at sign-in) is left as it is.
  const ownPlanMode = /plan_cache_mode/.test(url.searchParams.get("options") ?? "");

  const max = positiveInt(options.max, "pool", label, 1) ?? DEFAULT_POOL_SIZE;
  const connectTimeoutMs =
    positiveInt(options.connectTimeoutMs, "connectTimeoutMs", label, 1) ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const statementTimeoutMs = positiveInt(options.statementTimeoutMs, "statementTimeoutMs", label, 0);
  const idleTimeoutMs =
    positiveInt(options.idleTimeoutMs, "idleTimeoutMs", label, 0) ?? DEFAULT_IDLE_TIMEOUT_MS;
  const config: PoolConfig = {
    connectionString: url.toString(),
    max,
    ssl: tls,
    application_name: options.applicationName ?? DEFAULT_APPLICATION_NAME,
    connectionTimeoutMillis: connectTimeoutMs,
    idleTimeoutMillis: idleTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  };
  if (!ownPlanMode)
    config.onConnect = async (client) => {
      await client.query(CUSTOM_PLANS);
    };
  if (statementTimeoutMs !== undefined) config.statement_timeout = statementTimeoutMs;
  return { config, ssl, ctx: { label, target, urlWhere, secrets, connectTimeoutMs } };
}

/**
 * What another connection to the datasource (the cluster link) must be opened with, resolved as the
 * pool's are: the same checks and TLS decision, so the two never differ on what a datasource says.
 */
export interface PostgresConnectionSettings {
  /** The connection string without its TLS parameters (node-postgres would let them win over `ssl`). */
  connectionString: string;
  /** TLS as node-postgres takes it: `false` for plain TCP, else the certificate checks (and CA) to apply. */
  ssl: false | ConnectionOptions;
  /** Bound on opening the connection (TCP, TLS and sign-in), in ms. */
  connectTimeoutMs: number;
  /**
   * A failure to open that connection as a PostgresStoreError naming the datasource, the redacted
   * target and the fix (as the pool's first connection's); `what` names the connection in it.
   */
  connectError(err: unknown, what: string): PostgresStoreError;
}

/** The pool's resolution of `options` (resolvePoolConfig) for a connection opened elsewhere. */
export function connectionSettings(options: ConnectPostgresOptions): PostgresConnectionSettings {
  const { config, ctx } = resolvePoolConfig(options);
  return {
    connectionString: config.connectionString as string,
    ssl: config.ssl as false | ConnectionOptions,
    connectTimeoutMs: ctx.connectTimeoutMs,
    connectError: (err, what) => connectError(err, { ...ctx, label: `${ctx.label} (${what})` }),
  };
}

const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "ECONNRESET",
  "EPIPE",
]);
const CERT_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS/;

/** Turns a failure to open the first connection into a PostgresStoreError a person can act on. */
export function connectError(err: unknown, ctx: Ctx): PostgresStoreError {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e.code === "string" ? e.code : "";
  const reason = scrub(describeError(err), ctx.secrets);
  const at = `PostgreSQL at ${ctx.target}`;
  const make = (kind: PostgresStoreError["code"], text: string) =>
    new PostgresStoreError(kind, `${ctx.label}: ${text}`, { cause: err });
  if (code === "28P01" || (code === "28000" && !/pg_hba/.test(reason))) {
    return make(
      "auth_failed",
      `${at} refused the sign-in (${reason}): check the user name and password in ${ctx.urlWhere}`,
    );
  }
  if (code === "28000") {
    return make(
      "auth_failed",
      `${at} does not accept this client (${reason}): allow this host, user and database in the server's pg_hba.conf, or check ${ctx.urlWhere}`,
    );
  }
  if (code === "3D000") {
    return make(
      "database_missing",
      `${at}: ${reason}: create the database or fix its name in ${ctx.urlWhere}`,
    );
  }
  if (code === "53300") {
    return make(
      "connect_failed",
      `${at} has no free connection slot (${reason}): lower pool on the instances or raise max_connections`,
    );
  }
  if (/does not support SSL/i.test(reason)) {
    return make(
      "tls_failed",
      `${at} does not accept TLS connections: enable TLS on the server, or set ssl: off on the datasource (only on a trusted network)`,
    );
  }
  if (CERT_CODES.test(code)) {
    return make(
      "tls_failed",
      `${at}: the server certificate was not accepted (${code}: ${reason}): set sslCaFile to the CA that signed it, ` +
        `or ssl: require to encrypt without checking the certificate`,
    );
  }
  if (UNREACHABLE.has(code) || /timeout|terminated unexpectedly|Connection terminated/i.test(reason)) {
    return make(
      "unreachable",
      `cannot reach ${at} within ${ctx.connectTimeoutMs} ms (${code || reason}): check that the server is running and accepts ` +
        `connections from here, and that the host and port in ${ctx.urlWhere} are right`,
    );
  }
  return make("connect_failed", `cannot connect to ${at} (${code ? `${code}: ` : ""}${reason})`);
}

/**
 * Opens a pool, checks that a connection can be made (sign-in, TLS, database), applies pending
 * migrations under the advisory lock and returns drizzle over the pool with the pg tables.
 */
export async function connectPostgres(options: ConnectPostgresOptions): Promise<PostgresStore> {
  const { config, ctx } = resolvePoolConfig(options);
  const pg = loadPg();
  const max = config.max ?? DEFAULT_POOL_SIZE;
  // One connection of the `max` kept apart: a burst's accepts then wait for their own previous
  // statement only, not behind every turn's statements in the pool's queue.
  const apart = options.express === true && max >= 2;
  // Parameterized statements are prepared once per connection (named-statements.ts).
  const pool = new pg.Pool({ ...config, max: apart ? max - 1 : max, Client: namingClient(pg.Client) });
  const lane = apart ? new pg.Pool({ ...config, max: 1, Client: namingClient(pg.Client) }) : undefined;
  // An idle pooled connection that dies (server restart, network) emits 'error' on the pool;
  // unhandled, that would crash the process. The pool replaces it on the next checkout.
  for (const p of lane ? [pool, lane] : [pool])
    p.on("error", (err) => {
      options.logger?.warn?.(
        { datasource: options.datasource ?? "postgres", err: scrub(describeError(err), ctx.secrets) },
        "postgres: an idle pooled connection failed; it is replaced on next use",
      );
    });
  const endAll = () => Promise.all([pool.end(), lane?.end()]).then(() => undefined);
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    await endAll().catch(() => undefined);
    throw connectError(err, ctx);
  }
  // A checked-out client whose connection dies emits 'error' besides failing its query; without a
  // listener that would be an uncaught exception. The failed query is what reports it here.
  const ignore = () => undefined;
  client.on("error", ignore);
  let migration: MigrationReport;
  try {
    migration =
      options.migrate === false
        ? await readSchemaVersion(client).then((v) => ({ from: v, to: v, applied: [] }))
        : await runMigrations(client, {
            label: `${ctx.label} (${ctx.target})`,
            steps: options.migrations,
            now: options.now,
            timeoutMs: options.migrationTimeoutMs ?? DEFAULT_MIGRATION_TIMEOUT_MS,
          });
  } catch (err) {
    client.off("error", ignore);
    client.release(true);
    await endAll().catch(() => undefined);
    if (err instanceof PostgresStoreError) throw err;
    throw new PostgresStoreError(
      "migration_failed",
      `${ctx.label}: reading the schema of ${ctx.target} failed: ${scrub(describeError(err), ctx.secrets)}`,
      { cause: err },
    );
  }
  client.off("error", ignore);
  client.release();
  // One line per start that changed the schema (a first start applies every step).
  const { from, to, applied } = migration;
  if (applied.length) {
    options.logger?.info(
      { datasource: options.datasource ?? "postgres", from, to, applied },
      from === 0
        ? `postgres store created at schema version ${to}`
        : `postgres store migrated from schema version ${from} to ${to} (${applied.length} step${applied.length === 1 ? "" : "s"})`,
    );
  }
  const { drizzle } = loadDrizzlePg();
  const db = drizzle({ client: pool }) as PostgresDb;
  const express = lane ? (drizzle({ client: lane }) as PostgresDb) : db;
  let closed: Promise<void> | undefined;
  return {
    datasource: options.datasource ?? "postgres",
    target: ctx.target,
    pool,
    db,
    express,
    tables: pgTables,
    migration,
    schemaVersion: () => readSchemaVersion(pool),
    close: () => {
      closed ??= endAll();
      return closed;
    },
  };
}
