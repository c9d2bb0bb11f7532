import { Writable } from "node:stream";

export interface LogLine {
  level: number;
  name?: string;
  msg?: string;
  [key: string]: unknown;
}

/** A pino destination that keeps every JSON line, for asserting on log output. */
export function captureLogs(): { stream: Writable; lines(): LogLine[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join("")
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as LogLine),
  };
}
