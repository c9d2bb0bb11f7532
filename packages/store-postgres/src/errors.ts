/**
 * A PostgreSQL store problem an operator must fix (unreachable server, failed sign-in, bad TLS
 * setup, failed or edited migration). Raised at boot, never sent to a browser. Messages name the
 * datasource and what to fix, and never contain the password: connection strings are redacted.
 */
export class PostgresStoreError extends Error {
  constructor(
    readonly code:
      | "invalid_options"
      | "env_unset"
      | "unreachable"
      | "auth_failed"
      | "database_missing"
      | "tls_failed"
      | "connect_failed"
      | "migration_failed"
      | "schema_too_new"
      | "migration_edited",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "PostgresStoreError";
  }
}

export function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
