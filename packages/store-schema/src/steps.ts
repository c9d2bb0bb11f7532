// What a migration step is, and the version both dialects reach with their last step.
import { createHash } from "node:crypto";

export interface MigrationStep {
  version: number;
  name: string;
  sql: string;
}

/** Where each dialect records its applied steps (version, name, checksum, applied_at). */
export const SCHEMA_VERSION_TABLE = "agentsvc_schema_version";

/**
 * The version a store is at after migrating, on either dialect. Bump it together with a new last
 * step in sqlite-migrations.ts AND postgres-migrations.ts (a test holds all three to it).
 */
export const CURRENT_SCHEMA_VERSION = 23;

/** The checksum recorded with an applied step; a shipped step whose SQL changed no longer matches. */
export function stepChecksum(step: MigrationStep): string {
  return createHash("sha256").update(step.sql).digest("hex");
}
