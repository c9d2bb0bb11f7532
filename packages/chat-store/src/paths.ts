import { mkdirSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { ChatDbError, describeError } from "./errors.js";

export const DEFAULT_DATASOURCE = "agentsvc";
export const DEFAULT_DATABASE_PATH = "./data/chat.db";

/** A named datasource from the project config; only its type matters to this store. */
export interface DatasourceConfig {
  type: string;
}

function where(source: string | undefined, key: string): string {
  return source ? `${source}: ${key}` : key;
}

/** Checks the datasource is SQLite: `agentsvc` is the built-in one, others must be declared. */
export function checkDatasource(
  name: string,
  datasources: Readonly<Record<string, DatasourceConfig>> | undefined,
  source?: string,
): void {
  const declared = datasources?.[name];
  if (!declared) {
    if (name === DEFAULT_DATASOURCE) return;
    const known = [DEFAULT_DATASOURCE, ...Object.keys(datasources ?? {})].join(", ");
    throw new ChatDbError(
      "invalid_datasource",
      `${where(source, "database.datasource")}: unknown datasource "${name}" (declared: ${known})`,
    );
  }
  if (declared.type !== "sqlite") {
    throw new ChatDbError(
      "invalid_datasource",
      `${where(source, "database.datasource")}: datasource "${name}" has type "${declared.type}"; ` +
        (declared.type === "postgres"
          ? "open it with openPostgresChatDb (ChatDb.open is the SQLite store)"
          : `the chat store supports "sqlite" and "postgres" datasources`),
    );
  }
}

/** Resolves `database.path` against the app root and creates its directory. */
export function resolveStorePath(appRoot: string, path: string | undefined, source?: string): string {
  const relative = path ?? DEFAULT_DATABASE_PATH;
  const key = where(source, "database.path");
  if (relative.trim() === "") {
    throw new ChatDbError("invalid_path", `${key}: must be a file path relative to the app root (got "")`);
  }
  if (isAbsolute(relative) || /^[A-Za-z]:[\\/]/.test(relative)) {
    throw new ChatDbError("invalid_path", `${key}: must be relative to the app root (got "${relative}")`);
  }
  // Whole segments only: "..hidden" and "a..b" are ordinary names.
  if (relative.split(/[\\/]/).includes("..")) {
    throw new ChatDbError("invalid_path", `${key}: must not contain a ".." segment (got "${relative}")`);
  }
  const file = resolve(appRoot, relative);
  try {
    mkdirSync(dirname(file), { recursive: true });
  } catch (err) {
    throw new ChatDbError(
      "invalid_path",
      `${key}: cannot create the directory ${dirname(file)}: ${describeError(err)}`,
      { cause: err },
    );
  }
  return file;
}
