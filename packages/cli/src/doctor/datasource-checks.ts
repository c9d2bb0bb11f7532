// Each PostgreSQL datasource: connect (sign-in, TLS, database) as the server will, without applying
// anything; the server's version (13 or newer: server_version_num,
// https://www.postgresql.org/docs/current/runtime-config-preset.html); and the schema steps not yet
// applied, which the next `agentsvc start` applies under the migration lock (reported ok: pending
// steps are the normal state before a first deploy or an upgrade).
import { isPostgresDatasource, type Project } from "@agentsvc/config-schema";
import type { CheckResult } from "./gateway-checks.js";

const MIN_SERVER_VERSION = 130000;

type Env = Record<string, string | undefined>;

async function loadStorePostgres() {
  try {
    return await import("@agentsvc/store-postgres");
  } catch {
    return undefined;
  }
}

/** Connect, version and migrations of every postgres datasource of the project. */
export async function checkDatasources(project: Project, env: Env): Promise<CheckResult[]> {
  const postgres = Object.entries(project.config.datasources).filter(
    (e): e is [string, Extract<(typeof e)[1], { type: "postgres" }>] => isPostgresDatasource(e[1]),
  );
  if (!postgres.length) return [];
  const pgStore = await loadStorePostgres();
  const out: CheckResult[] = [];
  for (const [name, datasource] of postgres) {
    const check = `postgres datasource ${name}`;
    if (!pgStore) {
      out.push({
        check,
        status: "failed",
        detail: "@agentsvc/store-postgres is not installed",
        fix: "install @agentsvc/store-postgres in the project (npm install @agentsvc/store-postgres)",
      });
      continue;
    }
    let store: Awaited<ReturnType<typeof pgStore.connectDatasource>>;
    try {
      store = await pgStore.connectDatasource({
        name,
        datasource,
        env,
        appRoot: project.root,
        source: project.configFile ?? "agentsvc.config",
        migrate: false,
        max: 1,
      });
    } catch (error) {
      // PostgresStoreError messages name the datasource, redact the password and say what to check.
      const code = (error as { code?: string }).code;
      out.push({
        check,
        status: "failed",
        detail: code ?? "connect failed",
        fix: (error as Error).message,
      });
      continue;
    }
    try {
      const { rows } = await store.pool.query<{ num: string; version: string }>(
        "SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS version",
      );
      const num = Number(rows[0]?.num ?? 0);
      const version = rows[0]?.version ?? "?";
      out.push(
        num >= MIN_SERVER_VERSION
          ? { check, status: "ok", detail: `connected to ${store.target}, PostgreSQL ${version}` }
          : {
              check,
              status: "failed",
              detail: `PostgreSQL ${version} at ${store.target}`,
              fix: "agentsvc needs PostgreSQL 13 or newer: upgrade the server",
            },
      );
      out.push(migrations(name, store.migration.from, pgStore.MIGRATIONS, pgStore.CURRENT_SCHEMA_VERSION));
    } finally {
      await store.close();
    }
  }
  return out;
}

function migrations(
  name: string,
  at: number,
  steps: readonly { version: number; name: string }[],
  current: number,
): CheckResult {
  const check = `postgres datasource ${name} migrations`;
  if (at > current)
    return {
      check,
      status: "failed",
      detail: `the database is at schema version ${at}, this agentsvc knows ${current}`,
      fix: "a newer agentsvc migrated this database: run that version (or newer) here too",
    };
  const pending = steps.filter((s) => s.version > at);
  if (!pending.length) return { check, status: "ok", detail: `schema version ${at}, nothing pending` };
  // Not a failure: a new or older database is what a first deploy or an upgrade starts from, and
  // `agentsvc start` applies the steps when it boots (once, under the migration lock).
  const where = at === 0 ? "an empty database" : `schema version ${at}`;
  const count = `${pending.length} migration${pending.length === 1 ? "" : "s"} pending`;
  return {
    check,
    status: "ok",
    detail: `${where}: ${count} (${pending.map((s) => `${s.version} ${s.name}`).join(", ")}); start applies them`,
  };
}
