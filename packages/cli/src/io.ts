/** Where the CLI writes and what it reads from its environment; tests pass their own. */
export interface OutStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface CliIO {
  stdout: OutStream;
  stderr: OutStream;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Read by verbs that take secrets (hash-password); default process.stdin. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
}

export function defaultIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    stdin: process.stdin,
  };
}

/** Colour only on a terminal; NO_COLOR (non-empty) turns it off, FORCE_COLOR (non-empty, not 0) on. */
export function useColor(stream: OutStream, env: CliIO["env"]): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== "0") return true;
  return stream.isTTY === true;
}

const CODES = { red: [31, 39], yellow: [33, 39], green: [32, 39], dim: [2, 22], bold: [1, 22] } as const;
export type Style = keyof typeof CODES;

export interface Printer {
  out(line: string): void;
  err(line: string): void;
  /** Styles text for stdout (`out`) or stderr (`err`); plain when that stream gets no colour. */
  style(stream: "out" | "err", style: Style, text: string): string;
}

export function printer(io: CliIO): Printer {
  const color = { out: useColor(io.stdout, io.env), err: useColor(io.stderr, io.env) };
  return {
    out: (line) => io.stdout.write(`${line}\n`),
    err: (line) => io.stderr.write(`${line}\n`),
    style: (stream, style, text) => {
      if (!color[stream]) return text;
      const [on, off] = CODES[style];
      return `\u001b[${on}m${text}\u001b[${off}m`;
    },
  };
}
