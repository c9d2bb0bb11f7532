/**
 * A store problem an operator must fix (bad path, missing driver, failed migration). Raised at boot,
 * never sent to a browser. Client-facing refusals use agent-core's `AgentsvcError` instead.
 */
export class ChatDbError extends Error {
  constructor(
    readonly code:
      | "invalid_path"
      | "invalid_datasource"
      | "invalid_durability"
      | "driver_missing"
      | "open_failed"
      | "migration_failed"
      | "schema_too_new"
      | "migration_edited"
      | "invalid_account"
      | "unsupported",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ChatDbError";
  }
}

export function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
