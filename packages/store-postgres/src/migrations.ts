// Runs PostgreSQL's schema steps (@agentsvc/store-schema's POSTGRES_MIGRATIONS) under an advisory
// lock, recorded in the same `agentsvc_schema_version` table (version, name, checksum, applied_at)
// as SQLite's, with the same refusal when a recorded checksum differs from the shipped step
// (someone edited a shipped step).
import {
  BASELINE_VERSION,
  CURRENT_SCHEMA_VERSION,
  type MigrationStep,
  POSTGRES_MIGRATIONS as MIGRATIONS,
  SCHEMA_VERSION_TABLE,
  stepChecksum,
} from "@agentsvc/store-schema";
import type { PoolClient } from "pg";
import { describeError, PostgresStoreError } from "./errors.js";

export {
  BASELINE_VERSION,
  CURRENT_SCHEMA_VERSION,
  MIGRATIONS,
  type MigrationStep,
  SCHEMA_VERSION_TABLE,
  stepChecksum,
};

export interface MigrationReport {
  /** The schema version found once the migration lock was held (0 for an empty database). */
  from: number;
  to: number;
  /** The steps THIS call applied; empty when another instance had already migrated. */
  applied: number[];
}

/**
 * The constant key of the transaction-level advisory lock every instance takes before it reads or
 * changes the schema: the ASCII bytes of "agentsvc" as a bigint (0x6167656e74737663).
 */
export const MIGRATION_LOCK_KEY = "7018690069354739299";

/** Default bound on the whole migration transaction (lock wait included): 5 minutes. */
export const DEFAULT_MIGRATION_TIMEOUT_MS = 300_000;

export interface RunMigrationsOptions {
  /** Names the database in messages, e.g. `datasource "main" (postgres://app:***@db:5432/agentsvc)`. */
  label: string;
  steps?: readonly MigrationStep[];
  now?: () => number;
  /** statement_timeout and lock_timeout inside the migration transaction. */
  timeoutMs?: number;
}

interface VersionRow {
  version: number;
  name: string;
  checksum: string;
}

function checkSteps(steps: readonly MigrationStep[]): void {
  const first = steps[0]?.version ?? 1;
  steps.forEach((step, i) => {
    if (!Number.isInteger(step.version) || step.version < 1 || step.version !== first + i) {
      throw new Error(
        `migration steps must be numbered consecutively in order (step ${i} has version ${step.version})`,
      );
    }
  });
}

async function rollback(client: PoolClient): Promise<void> {
  try {
    await client.query("ROLLBACK");
  } catch {
    // The connection is gone; the server rolled the transaction back itself.
  }
}

/** The highest recorded step, or 0 when the version table does not exist yet. */
export async function readSchemaVersion(client: Pick<PoolClient, "query">): Promise<number> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass($1) AS t", [
    SCHEMA_VERSION_TABLE,
  ]);
  if (!exists.rows[0]?.t) return 0;
  const r = await client.query<{ v: number | null }>(`SELECT MAX(version) AS v FROM ${SCHEMA_VERSION_TABLE}`);
  return r.rows[0]?.v ?? 0;
}

/**
 * Applies every step newer than the database in ONE transaction that first takes the advisory
 * lock MIGRATION_LOCK_KEY (pg_advisory_xact_lock: released by COMMIT or ROLLBACK, and by the
 * server if this process dies). Instances booting together queue on the lock; the first applies
 * the steps, the others then find them recorded and apply nothing. PostgreSQL DDL is
 * transactional, so a failed step leaves the database exactly at the version it had before.
 */
export async function runMigrations(
  client: PoolClient,
  options: RunMigrationsOptions,
): Promise<MigrationReport> {
  const steps = options.steps ?? MIGRATIONS;
  const now = options.now ?? Date.now;
  const label = options.label;
  const timeout = Math.max(0, Math.floor(options.timeoutMs ?? DEFAULT_MIGRATION_TIMEOUT_MS));
  checkSteps(steps);
  const last = steps.length ? steps[steps.length - 1]!.version : 0;
  const byVersion = new Map(steps.map((s) => [s.version, s]));

  let from = 0;
  try {
    await client.query("BEGIN");
    await client.query(`SET LOCAL statement_timeout = ${timeout}`);
    await client.query(`SET LOCAL lock_timeout = ${timeout}`);
  } catch (err) {
    await rollback(client);
    throw new PostgresStoreError(
      "migration_failed",
      `${label}: cannot start the migration: ${describeError(err)}`,
      {
        cause: err,
      },
    );
  }
  try {
    await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [MIGRATION_LOCK_KEY]);
  } catch (err) {
    await rollback(client);
    throw new PostgresStoreError(
      "migration_failed",
      `${label}: waited ${timeout} ms for the migration lock without getting it (${describeError(err)}): another ` +
        `instance holds it; if no instance is starting, find the holder in pg_locks (locktype advisory, ` +
        `classid ${BigInt(MIGRATION_LOCK_KEY) >> 32n}, objid ${BigInt(MIGRATION_LOCK_KEY) & 0xffffffffn}) and end its session`,
      { cause: err },
    );
  }
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS ${SCHEMA_VERSION_TABLE} (
  version INTEGER PRIMARY KEY NOT NULL,
  name TEXT NOT NULL,
  checksum TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)`);
    from = await readSchemaVersion(client);
  } catch (err) {
    await rollback(client);
    throw new PostgresStoreError(
      "migration_failed",
      `${label}: cannot read the schema version: ${describeError(err)}`,
      { cause: err },
    );
  }

  const refuse = async (error: PostgresStoreError): Promise<never> => {
    await rollback(client);
    throw error;
  };
  if (from > last) {
    return refuse(
      new PostgresStoreError(
        "schema_too_new",
        `${label}: the database is at schema version ${from}, newer than this agentsvc understands (${last}); ` +
          `upgrade agentsvc on every instance (the store is forward-only and is never downgraded)`,
      ),
    );
  }
  const recorded = await client.query<VersionRow>(
    `SELECT version, name, checksum FROM ${SCHEMA_VERSION_TABLE} ORDER BY version`,
  );
  for (const row of recorded.rows) {
    const step = byVersion.get(row.version);
    if (step && stepChecksum(step) !== row.checksum) {
      return refuse(
        new PostgresStoreError(
          "migration_edited",
          `${label}: migration step ${row.version} ("${step.name}") differs from the one this database applied; ` +
            `shipped steps must never be edited — restore it and add a new step instead`,
        ),
      );
    }
  }

  const applied: number[] = [];
  for (const step of steps) {
    if (step.version <= from) continue;
    try {
      await client.query(step.sql);
      await client.query(
        `INSERT INTO ${SCHEMA_VERSION_TABLE} (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)`,
        [step.version, step.name, stepChecksum(step), now()],
      );
      applied.push(step.version);
    } catch (err) {
      return refuse(
        new PostgresStoreError(
          "migration_failed",
          `${label}: migration step ${step.version} ("${step.name}") failed: ${describeError(err)}; ` +
            `nothing was applied, the database stays at schema version ${from}`,
          { cause: err },
        ),
      );
    }
  }
  try {
    await client.query("COMMIT");
  } catch (err) {
    return refuse(
      new PostgresStoreError(
        "migration_failed",
        `${label}: committing the migration failed: ${describeError(err)}; the database stays at schema version ${from}`,
        { cause: err },
      ),
    );
  }
  return { from, to: applied.length ? applied[applied.length - 1]! : from, applied };
}
