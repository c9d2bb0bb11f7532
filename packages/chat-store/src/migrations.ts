// Runs SQLite's schema steps (@agentsvc/store-schema's SQLITE_MIGRATIONS) on a store file. Each
// applied step is recorded with a checksum of its SQL; a mismatch at boot means someone edited a
// shipped step, and the store refuses to open rather than drift silently.
import {
  CURRENT_SCHEMA_VERSION,
  type MigrationStep,
  SCHEMA_VERSION_TABLE,
  SQLITE_MIGRATIONS as MIGRATIONS,
  stepChecksum,
} from "@agentsvc/store-schema";
import type { Statement } from "better-sqlite3";
import type { SqliteConnection } from "./driver.js";
import { ChatDbError, describeError } from "./errors.js";
import { FRESH_SCHEMA } from "./fresh-schema.js";

export { CURRENT_SCHEMA_VERSION, MIGRATIONS, type MigrationStep, SCHEMA_VERSION_TABLE, stepChecksum };

export interface MigrationReport {
  from: number;
  to: number;
  applied: number[];
}

interface VersionRow {
  version: number;
  name: string;
  checksum: string;
}

function ensureVersionTable(sqlite: SqliteConnection): void {
  sqlite.exec(`CREATE TABLE IF NOT EXISTS ${SCHEMA_VERSION_TABLE} (
  version INTEGER PRIMARY KEY NOT NULL,
  name TEXT NOT NULL,
  checksum TEXT NOT NULL,
  applied_at INTEGER NOT NULL
)`);
}

export function readSchemaVersion(sqlite: SqliteConnection): number {
  const row = sqlite.prepare(`SELECT MAX(version) AS v FROM ${SCHEMA_VERSION_TABLE}`).get() as {
    v: number | null;
  };
  return row.v ?? 0;
}

function checkSteps(steps: readonly MigrationStep[]): void {
  steps.forEach((step, i) => {
    if (step.version !== i + 1) {
      throw new Error(
        `migration steps must be numbered 1..n in order (step ${i} has version ${step.version})`,
      );
    }
  });
}

/** The step whose SQL failed, carried out of a transaction to name it in the error. */
class StepFailure extends Error {
  constructor(
    readonly step: MigrationStep,
    override readonly cause: unknown,
  ) {
    super(describeError(cause));
  }
}

/** The precomputed schema's SQL failed (the steps it stands for never ran one by one). */
class FreshSchemaFailure extends Error {
  constructor(override readonly cause: unknown) {
    super(describeError(cause));
  }
}

/**
 * An empty store gets the schema its steps would leave as one script (fresh-schema.ts: ~3 ms of
 * CPU on a first start instead of ~9 ms for 13 steps, table rebuilds among them) and every step's
 * version row, when that script was made from these very steps; a test compares both stores.
 */
function freshSchemaFor(steps: readonly MigrationStep[]): typeof FRESH_SCHEMA | undefined {
  return steps === MIGRATIONS && FRESH_SCHEMA.version === steps.length ? FRESH_SCHEMA : undefined;
}

function applyFreshSchema(
  sqlite: SqliteConnection,
  record: Statement,
  fresh: typeof FRESH_SCHEMA,
  now: () => number,
): void {
  try {
    sqlite.exec(fresh.sql);
  } catch (err) {
    throw new FreshSchemaFailure(err);
  }
  for (const step of fresh.steps) record.run(step.version, step.name, step.checksum, now());
}

function applyStep(
  sqlite: SqliteConnection,
  record: Statement,
  step: MigrationStep,
  now: () => number,
): void {
  try {
    sqlite.exec(step.sql);
  } catch (err) {
    throw new StepFailure(step, err);
  }
  record.run(step.version, step.name, stepChecksum(step), now());
}

/**
 * Applies every step newer than the store. An empty store (version 0) gets all of them in one
 * IMMEDIATE transaction: one sync instead of one per step (a first start), and a failed step leaves
 * it at version 0 with no tables. A store already at some version gets each step in its own
 * transaction together with its version row, so a failed step leaves it at the previous version.
 */
export function runMigrations(
  sqlite: SqliteConnection,
  options: { file: string; steps?: readonly MigrationStep[]; now?: () => number },
): MigrationReport {
  const restoreSync = unsyncedWhileEmpty(sqlite);
  try {
    return migrate(sqlite, options);
  } finally {
    restoreSync();
  }
}

/**
 * A store with nothing in it yet (a first start) writes its schema with synchronous OFF: in WAL
 * mode its commits are not synced, nor the new WAL's header and directory entry, so no first
 * answer waits on the disk for them (#45; under strace 5 fsyncs fewer than FULL, 2 fewer than
 * NORMAL). Never corrupting: power lost before the store's next synced commit leaves it empty
 * again (a WAL frame is checked against its checksum), the next start applies the steps again, and
 * that commit syncs the whole WAL and its directory entry (wal-sync.ts), these frames with it.
 * Returns what puts the setting back.
 */
function unsyncedWhileEmpty(sqlite: SqliteConnection): () => void {
  const empty = sqlite.prepare("SELECT count(*) FROM sqlite_master").pluck().get() === 0;
  if (!empty || sqlite.pragma("journal_mode", { simple: true }) !== "wal") return () => {};
  const level = sqlite.pragma("synchronous", { simple: true }) as number;
  sqlite.pragma("synchronous = OFF");
  return () => sqlite.pragma(`synchronous = ${level}`);
}

function migrate(
  sqlite: SqliteConnection,
  options: { file: string; steps?: readonly MigrationStep[]; now?: () => number },
): MigrationReport {
  const steps = options.steps ?? MIGRATIONS;
  const now = options.now ?? Date.now;
  checkSteps(steps);
  const file = options.file;
  try {
    ensureVersionTable(sqlite);
  } catch (err) {
    throw new ChatDbError("open_failed", `${file}: cannot read the schema version: ${describeError(err)}`, {
      cause: err,
    });
  }
  const from = readSchemaVersion(sqlite);
  if (from > steps.length) {
    throw new ChatDbError(
      "schema_too_new",
      `${file}: the store is at schema version ${from}, newer than this agentsvc understands (${steps.length}); ` +
        `upgrade agentsvc (the store is forward-only and is never downgraded)`,
    );
  }
  const recorded = sqlite
    .prepare(`SELECT version, name, checksum FROM ${SCHEMA_VERSION_TABLE} ORDER BY version`)
    .all() as VersionRow[];
  for (const row of recorded) {
    const step = steps[row.version - 1];
    if (step && stepChecksum(step) !== row.checksum) {
      throw new ChatDbError(
        "migration_edited",
        `${file}: migration step ${row.version} ("${step.name}") differs from the one this store applied; ` +
          `shipped steps must never be edited — restore it and add a new step instead`,
      );
    }
  }
  // Steps at or below `from` were applied before it was read (versions only grow): a store that
  // is up to date (every restart) takes no write lock, one per step before (#45).
  if (from === steps.length) return { from, to: from, applied: [] };
  const record = sqlite.prepare(
    `INSERT INTO ${SCHEMA_VERSION_TABLE} (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)`,
  );
  const failed = (err: unknown): ChatDbError => {
    const at = readSchemaVersion(sqlite);
    const step = err instanceof StepFailure ? err.step : undefined;
    const cause = err instanceof StepFailure || err instanceof FreshSchemaFailure ? err.cause : err;
    const which = step
      ? `migration step ${step.version} ("${step.name}")`
      : err instanceof FreshSchemaFailure
        ? `the new store's schema (steps 1-${steps.length} as one script)`
        : "a migration step";
    return new ChatDbError(
      "migration_failed",
      `${file}: ${which} failed: ${describeError(cause)}; the store stays at schema version ${at}`,
      { cause },
    );
  };
  const applied: number[] = [];
  if (from === 0) {
    const fresh = freshSchemaFor(steps);
    const applyAll = sqlite.transaction(() => {
      // Re-read inside the write lock: another process may have migrated meanwhile (then the
      // per-step loop below finds the rest, if any).
      if (readSchemaVersion(sqlite) > 0) return false;
      if (fresh) applyFreshSchema(sqlite, record, fresh, now);
      else for (const step of steps) applyStep(sqlite, record, step, now);
      return true;
    });
    try {
      if (applyAll.immediate()) applied.push(...steps.map((s) => s.version));
    } catch (err) {
      throw failed(err);
    }
  }
  for (const step of applied.length > 0 ? [] : steps.slice(from)) {
    const apply = sqlite.transaction(() => {
      // Re-read inside the write lock: another process may have migrated meanwhile.
      if (readSchemaVersion(sqlite) >= step.version) return false;
      applyStep(sqlite, record, step, now);
      return true;
    });
    try {
      if (apply.immediate()) applied.push(step.version);
    } catch (err) {
      throw failed(err);
    }
  }
  return { from, to: readSchemaVersion(sqlite), applied };
}
