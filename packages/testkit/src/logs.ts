// A pino logger whose records land in an array, so a test can read what a gateway told the operator.
import { Writable } from "node:stream";
import { type Logger, pino } from "pino";

export interface LogRecord {
  level: number;
  time: number;
  msg: string;
  [key: string]: unknown;
}

export function captureLogs(level = "debug"): { logger: Logger; records: LogRecord[] } {
  const records: LogRecord[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      records.push(JSON.parse(String(chunk)) as LogRecord);
      done();
    },
  });
  return { logger: pino({ level }, sink), records };
}
