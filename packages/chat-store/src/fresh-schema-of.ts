// What a fresh store's schema is: the steps run one by one on an empty in-memory database, read back
// as the SQL of every object in creation order, with the version rows the steps record (#45). Used
// by scripts/write-fresh-schema.mjs and its test, never at start.
import Database from "better-sqlite3";
import { MIGRATIONS, runMigrations, SCHEMA_VERSION_TABLE, stepChecksum } from "./migrations.js";

export interface FreshSchema {
  version: number;
  steps: { version: number; name: string; checksum: string }[];
  sql: string;
}

export function freshSchemaOf(): FreshSchema {
  const sqlite = new Database(":memory:");
  try {
    // A copy: the very MIGRATIONS array would take the precomputed schema.
    runMigrations(sqlite, { file: ":memory:", steps: [...MIGRATIONS] });
    const objects = sqlite
      .prepare(
        `SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name <> ? ORDER BY rowid`,
      )
      .pluck()
      .all(SCHEMA_VERSION_TABLE) as string[];
    return {
      version: MIGRATIONS.length,
      steps: MIGRATIONS.map((s) => ({ version: s.version, name: s.name, checksum: stepChecksum(s) })),
      // Line breaks around it: the generated file holds it as a template literal.
      sql: `\n${objects.join(";\n")};\n`,
    };
  } finally {
    sqlite.close();
  }
}
