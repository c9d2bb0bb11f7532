// A pino logger whose lines a test can read back: what a gateway told the operator.
import { type Logger, pino } from "pino";

/** One pino line: level number, time in ms, message, and the logged fields. */
export interface LogLine {
  level: number;
  time: number;
  msg: string;
  [field: string]: unknown;
}

export interface CapturedLogs {
  logger: Logger;
  /** Parsed JSON log lines so far. */
  lines(): LogLine[];
}

/** A debug-level logger whose lines a test can read back. */
export function captureLogs(): CapturedLogs {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: "debug" },
    { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  );
  return { logger, lines: () => [...lines] };
}
