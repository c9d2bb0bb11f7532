import type { BaseIssue } from "valibot";

/** A problem that fails `check`/`build`. `file` is relative to the project root. */
export interface BuildError {
  file: string;
  /** Key path inside the file, e.g. `database.path` or `users[0].passwordHash`; "" for the whole file. */
  path: string;
  message: string;
  expected?: string;
  found?: string;
}

/** A problem worth a loud note that does not fail the build. */
export interface BuildWarning {
  file: string;
  path?: string;
  message: string;
}

/** `${file}: ${path}: ${message}` (the path part is left out when the issue concerns the whole file). */
export function formatIssue(e: BuildError | BuildWarning): string {
  return e.path ? `${e.file}: ${e.path}: ${e.message}` : `${e.file}: ${e.message}`;
}

/** Collects every error and warning of one load, so the caller sees all of them at once. */
export class IssueSink {
  readonly errors: BuildError[] = [];
  readonly warnings: BuildWarning[] = [];

  error(file: string, path: string, expected: string, found?: string): void {
    const message = found === undefined ? expected : `${expected} (got ${found})`;
    const e: BuildError = { file, path, message, expected };
    if (found !== undefined) e.found = found;
    this.errors.push(e);
  }

  warn(file: string, path: string | undefined, message: string): void {
    const w: BuildWarning = { file, message };
    if (path) w.path = path;
    this.warnings.push(w);
  }

  /** Turns valibot issues into errors; `prefix` is prepended to every key path. */
  fromValibot(file: string, issues: readonly BaseIssue<unknown>[], prefix = ""): void {
    for (const issue of issues) {
      const path = joinPath(prefix, issuePath(issue));
      if (isUnknownKey(issue)) {
        this.error(file, path, issue.message, `key ${JSON.stringify(lastKey(issue))}`);
      } else if (isMissingKey(issue)) {
        this.error(file, path, issue.message);
      } else {
        this.error(file, path, issue.message, describeFound(path, issue.input));
      }
    }
  }
}

type PathItem = { key?: unknown };

function issuePath(issue: BaseIssue<unknown>): string {
  let out = "";
  for (const item of (issue.path ?? []) as PathItem[]) {
    const key = item.key;
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

function joinPath(prefix: string, path: string): string {
  if (!prefix) return path;
  if (!path) return prefix;
  return path.startsWith("[") ? `${prefix}${path}` : `${prefix}.${path}`;
}

function lastKey(issue: BaseIssue<unknown>): unknown {
  const items = (issue.path ?? []) as PathItem[];
  return items[items.length - 1]?.key;
}

// valibot reports an unknown key of a strict object with expected "never", a missing one with input undefined.
function isUnknownKey(issue: BaseIssue<unknown>): boolean {
  return issue.kind === "schema" && issue.type === "strict_object" && issue.expected === "never";
}

function isMissingKey(issue: BaseIssue<unknown>): boolean {
  return (
    issue.kind === "schema" &&
    (issue.type === "strict_object" || issue.type === "object" || issue.type === "loose_object") &&
    issue.input === undefined &&
    (issue.expected ?? "").startsWith('"') &&
    (issue.path?.length ?? 0) > 0
  );
}

/**
 * How a found value is shown to a person. Values of secret-ish keys are never echoed: someone may
 * have pasted the secret itself where the variable name belongs.
 */
function describeFound(path: string, value: unknown): string {
  if (/(EnvVar|passwordHash|password)$/.test(path) && typeof value === "string") {
    return "a value that is not shown because it may be a secret";
  }
  return describeValue(value);
}

export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === "object") return "a mapping";
  if (typeof value === "function") return "a function";
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
