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
  /** Called once a started service is first idle, before its heap trim (the bin writes its code cache). */
  startedIdle?: () => void;
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

const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };
const escapeOne = (c: string) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * C0 and C1 control characters (and DEL) as visible escapes (`\n`, `\u001b`): for text the CLI did
 * not write itself (a thread id an e-mail sender chose, a platform's error), in a table cell or a
 * message, so it can neither move the cursor, retitle the terminal nor forge a line.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, escapeOne);
}

// Our own styles (CODES) pass; every other control but the line break is escaped.
const SGR_OURS = new Set(Object.values(CODES).flat().map(String));
const UNSAFE = /\u001b\[(\d+)m|[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;
function safeLine(line: string): string {
  return line.replace(UNSAFE, (m, code: string | undefined) =>
    code !== undefined && SGR_OURS.has(code) ? m : escapeOne(m[0] as string) + m.slice(1),
  );
}

export function printer(io: CliIO): Printer {
  const color = { out: useColor(io.stdout, io.env), err: useColor(io.stderr, io.env) };
  return {
    // A safety net under escapeControls: whatever reaches a line, only our styles are escape codes.
    out: (line) => io.stdout.write(`${safeLine(line)}\n`),
    err: (line) => io.stderr.write(`${safeLine(line)}\n`),
    style: (stream, style, text) => {
      if (!color[stream]) return text;
      const [on, off] = CODES[style];
      return `\u001b[${on}m${text}\u001b[${off}m`;
    },
  };
}
