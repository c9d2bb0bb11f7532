// Running commands in a project outside the workspace, as a user's shell would.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, statfsSync } from "node:fs";
import { freemem, tmpdir } from "node:os";
import { join } from "node:path";

const TMPFS_MAGIC = 0x01021994;
const GIB = 2 ** 30;

/**
 * Where a file's user folder goes (`mkdtemp` with `prefix`): /dev/shm when it is a tmpfs with room
 * (2 GiB free there and 3 GiB of memory), else the OS temp folder. npm writes about 14,000 files per
 * install of the CLI's tree: on the ext4 /tmp each install took 16-24 CPU-s (10-17 s of it the
 * kernel's), on tmpfs 8.3-9.5 (load 9-15). Each file removes its folder at its end (memory, on
 * tmpfs). INSTALL_TEST_TMPDIR names another parent (e.g. /tmp, to compare).
 */
export function userHome(prefix: string): string {
  return mkdtempSync(join(userTmp(), prefix));
}

function userTmp(): string {
  if (process.env.INSTALL_TEST_TMPDIR) return process.env.INSTALL_TEST_TMPDIR;
  try {
    // A root run's temp folder is on /dev/shm already (tooling/vitest.tmpdir.ts), removed at its end.
    if (statfsSync(tmpdir()).type === TMPFS_MAGIC) return tmpdir();
    const shm = statfsSync("/dev/shm");
    if (shm.type === TMPFS_MAGIC && shm.bavail * shm.bsize >= 2 * GIB && freemem() >= 3 * GIB)
      return "/dev/shm";
  } catch {
    // No /dev/shm (not Linux): the OS temp folder.
  }
  return tmpdir();
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a plain shell: no pnpm- or npm-injected settings of the outer test run (a
 * `pnpm test` exports npm_config_* and npm_package_*), except the native-addon headers that
 * bootstrap points at. Colour off so output can be matched.
 */
export function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(npm_|pnpm_|PNPM_|NODE_PATH$|INIT_CWD$|VITEST)/i.test(k) && k !== "npm_config_nodedir") continue;
    env[k] = v;
  }
  return { ...env, NO_COLOR: "1", npm_config_update_notifier: "false" };
}

export function run(cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd, env: userEnv(), timeout: timeoutMs, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({
          code,
          stdout,
          stderr: `${stderr}${err?.killed ? `\n(killed after ${timeoutMs} ms)` : ""}`,
        });
      },
    );
  });
}

export const NPM_FLAGS = ["--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"];

export interface Started {
  proc: ChildProcess;
  url: string;
  output: () => string;
  stop(): Promise<number | null>;
}

export interface StartOptions {
  /** The verb and its arguments. Default `start . --port 0`. */
  args?: string[];
  /** Added to the plain shell's environment (a row's secrets and endpoints). */
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** Starts the bin (`start . --port 0` unless told) and waits (bounded) for its "listening <url>" line. */
export function startServer(bin: string, dir: string, options: StartOptions = {}): Promise<Started> {
  const { args = ["start", ".", "--port", "0"], env = {}, timeoutMs = 30_000 } = options;
  const proc = spawn(bin, args, { cwd: dir, env: { ...userEnv(), ...env }, stdio: "pipe" });
  let output = "";
  const exited = new Promise<number | null>((done) => proc.once("exit", (code) => done(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`no "listening" line within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (data: Buffer) => {
      output += data.toString();
      const match = /listening (http:\/\/\S+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve({
        proc,
        url: match[1] as string,
        output: () => output,
        // Bounded: a process that ignores SIGTERM is killed after 15 s (and reports null).
        stop: () => {
          proc.kill("SIGTERM");
          const kill = setTimeout(() => proc.kill("SIGKILL"), 15_000);
          return exited.finally(() => clearTimeout(kill));
        },
      });
    };
    proc.stdout.on("data", onData);
    proc.stderr.on("data", (d: Buffer) => (output += d.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before listening:\n${output}`));
    });
  });
}
