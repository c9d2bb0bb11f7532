export { BASELINE_VERSION, POSTGRES_MIGRATIONS } from "./postgres-migrations.js";
export { SQLITE_MIGRATIONS } from "./sqlite-migrations.js";
export { CURRENT_SCHEMA_VERSION, type MigrationStep, SCHEMA_VERSION_TABLE, stepChecksum } from "./steps.js";
