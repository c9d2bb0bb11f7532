// The built `agentsvc` run as a child process, as a person's shell runs it.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "./helpers.js";

// AGENTSVC_TEST_BIN points these tests at another build (to watch them fail against old code).
export const bin = process.env.AGENTSVC_TEST_BIN ?? join(repoRoot, "packages/cli/bin/agentsvc.js");

/** A piped environment: no colour, no inherited LOG_LEVEL or PORT. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { LOG_LEVEL: _l, PORT: _p, FORCE_COLOR: _f, ...rest } = process.env;
  return { ...rest, NO_COLOR: "1", ...extra };
}

export interface BinResult {
  /** The exit code; null when a signal ended it (the 30 s timeout's SIGTERM). */
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `agentsvc <args>` to its end, blocking this process: only where nothing in this process must
 * answer meanwhile (no server started by the test is alive). Otherwise use runBinAsync.
 */
export function runBin(args: string[], env: Record<string, string> = {}, cwd = repoRoot): BinResult {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    env: cleanEnv(env),
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * runBin without blocking this process, for a test with a live server. Blocked through a loaded CLI
 * run (seconds), fetch's pooled keep-alive socket to the server outlives the server's 5 s keep-alive
 * unnoticed (undici's own timer cannot run) and the next request on it fails ("fetch failed: other
 * side closed"); and a fake in this process cannot answer the CLI (doctor) while blocked.
 */
export function runBinAsync(
  args: string[],
  env: Record<string, string> = {},
  cwd = repoRoot,
): Promise<BinResult> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: cleanEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30_000,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
  child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

export interface Served {
  proc: ChildProcess;
  url: string;
  output: () => string;
  stop(): Promise<number | null>;
}

/** How many of stderr's last lines an early exit's error names apart from the whole output. */
const STDERR_TAIL_LINES = 20;

/**
 * Spawns `cmd args` and waits (bounded) for `listening <url>`; `cmd` defaults to node + the bin.
 * A child that ends first rejects with its exit code or signal and its stderr's last lines, read to
 * the end of its pipes (Node: at `exit` the child's stdio streams may still be open).
 */
export function serveBin(
  args: string[],
  env: Record<string, string> = {},
  cmd: { file: string; args: string[] } = { file: process.execPath, args: [bin, ...args] },
): Promise<Served> {
  const proc = spawn(cmd.file, cmd.args, { env: cleanEnv(env), stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  let stderr = "";
  const exited = new Promise<number | null>((done) => proc.once("exit", (code) => done(code)));
  // Its pipes' end, or a second after its exit (a process it started may hold them open).
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    proc.once("exit", (code, signal) => {
      const late = setTimeout(() => done({ code, signal }), 1000);
      proc.once("close", () => {
        clearTimeout(late);
        done({ code, signal });
      });
    }),
  );
  return new Promise((resolve, reject) => {
    let listening = false;
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`no "listening" line in 30 s:\n${output}`));
    }, 30_000);
    const onData = (data: Buffer) => {
      output += data.toString();
      if (listening) return;
      const match = /listening(?:\u001b\[\d+m)? (http:\/\/[\w.:[\]]+)/.exec(output);
      if (!match) return;
      listening = true;
      clearTimeout(timer);
      resolve({
        proc,
        url: match[1] as string,
        output: () => output,
        stop: () => {
          proc.kill("SIGTERM");
          return exited;
        },
      });
    };
    proc.stdout?.on("data", onData);
    proc.stderr?.on("data", (data: Buffer) => {
      stderr += data.toString();
      onData(data);
    });
    void ended.then(({ code, signal }) => {
      clearTimeout(timer);
      if (listening) return;
      const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
      const tail = stderr.trimEnd().split("\n").slice(-STDERR_TAIL_LINES).join("\n");
      reject(new Error(`${how} before listening; stderr's last lines:\n${tail}\nwhole output:\n${output}`));
    });
  });
}

export const invoke = (url: string, input = "hello") =>
  fetch(`${url}/agent/invoke`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input }),
    signal: AbortSignal.timeout(10_000),
  });

/** Waits (bounded) until `check` holds for the output so far. */
export async function outputUntil(
  served: Served,
  check: (out: string) => boolean,
  ms = 5000,
): Promise<string> {
  const deadline = Date.now() + ms;
  while (!check(served.output())) {
    if (Date.now() > deadline) throw new Error(`output never matched:\n${served.output()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return served.output();
}
