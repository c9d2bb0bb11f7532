import pino, { type Logger } from "pino";
import { escapeLogValues } from "./log-escape.js";

export type LogFormat = "pretty" | "json";
export const LOG_FORMATS: readonly LogFormat[] = ["pretty", "json"];
const LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export interface LoggerOptions {
  /** Default: pretty when stdout is a terminal, JSON lines when it is piped. */
  format?: LogFormat;
  /** Default `LOG_LEVEL`, else `info`. */
  level?: string;
  env?: NodeJS.ProcessEnv;
  /** Colour the pretty output (the CLI's NO_COLOR/FORCE_COLOR rule). Default: stdout is a terminal. */
  color?: boolean;
}

/** The level a logger runs at: `LOG_LEVEL` when it names a pino level; anything else is a start-up error. */
export function logLevel(options: Pick<LoggerOptions, "level" | "env"> = {}): string {
  const level = (options.level ?? options.env?.LOG_LEVEL ?? "info").toLowerCase();
  if (!LEVELS.includes(level)) {
    throw new Error(`LOG_LEVEL: expected one of ${LEVELS.join(", ")} (got ${JSON.stringify(level)})`);
  }
  return level;
}

/**
 * Options every root logger gets. An error logged with `{ err }` (a retry, a failed poll) is one line:
 * type, message and code; its stack only at debug and trace, where someone is looking for it.
 */
export function loggerOptions(level: string): pino.LoggerOptions {
  const verbose = level === "debug" || level === "trace";
  return {
    level,
    serializers: {
      err: (err: unknown) => {
        const out = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
        if (verbose || typeof out !== "object" || out === null) return out;
        return withoutStacks(out);
      },
    },
  };
}

function withoutStacks(err: Record<string, unknown>): Record<string, unknown> {
  const { stack: _stack, ...rest } = err;
  if (typeof rest.cause === "object" && rest.cause !== null) {
    rest.cause = withoutStacks(rest.cause as Record<string, unknown>);
  }
  return rest;
}

/**
 * The service's root logger on stdout. Pretty lines (pino-pretty, in-process, so no worker thread)
 * for a person at a terminal; JSON lines for a log collector. Loaded only when pretty is chosen.
 */
export async function createLogger(options: LoggerOptions = {}): Promise<Logger> {
  const level = logLevel({ level: options.level, env: options.env ?? process.env });
  const format = options.format ?? (process.stdout.isTTY ? "pretty" : "json");
  if (format === "json") return pino(loggerOptions(level));
  // CommonJS: `prettyFactory` hangs off the default export (a bundle may not lift it to a named one).
  const { default: pretty } = await import("pino-pretty");
  const prettify = pretty.prettyFactory({
    colorize: options.color ?? process.stdout.isTTY === true,
    translateTime: "SYS:HH:MM:ss.l",
    // Request lines carry method, path, status and time in their message; the fields stay in JSON.
    ignore: "pid,hostname,req,res,responseTime",
  });
  // Every value escaped before it is printed: a caller's newline never starts a line of its own.
  const out = pino.destination({ dest: 1, sync: true });
  const stream = {
    write(line: string) {
      out.write(prettify(escapeLogValues(JSON.parse(line)) as Record<string, unknown>));
    },
  };
  return pino(loggerOptions(level), stream);
}
