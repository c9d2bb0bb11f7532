import { type ChildProcess, spawn } from "node:child_process";
import { basename } from "node:path";

export interface ChildServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts one of `servers/*.ts` in its own Node process: the load generator then never shares an
 * event loop (or a GC) with the server it measures, and the two servers never share one either.
 */
export async function startChildServer(file: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const child: ChildProcess = spawn(process.execPath, [...profileFlags(file, env), file], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const url = await new Promise<string>((ok, fail) => {
    let seen = "";
    child.stdout?.on("data", (data: Buffer) => {
      seen += data.toString("utf8");
      const line = seen.split("\n")[0] ?? "";
      if (seen.includes("\n")) ok(line.trim());
    });
    child.once("exit", (code) => fail(new Error(`${file} exited with ${code} before printing its URL`)));
  });
  return {
    url,
    pid: child.pid as number,
    stop: () =>
      new Promise<void>((ok) => {
        if (child.exitCode !== null) return ok();
        child.once("exit", () => ok());
        child.kill("SIGTERM");
      }),
  };
}

/**
 * BENCH_CPU_PROF_DIR=<dir>: each child server writes a V8 CPU profile there when it exits, named
 * after its file and env (e.g. `soak-route-SOAK_MEMORY=window-<time>.cpuprofile`). Proportions in a
 * profile survive a loaded machine; wall-clock figures do not.
 */
function profileFlags(file: string, env: Record<string, string>): string[] {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  if (!dir) return [];
  // Values such as a database URL hold `/` and `:`; a file name cannot.
  const label = [basename(file, ".ts"), ...Object.entries(env).map(([k, v]) => `${k}=${v}`)]
    .join("-")
    .replace(/[^\w.=-]+/g, "_");
  return ["--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${label}-${Date.now()}.cpuprofile`];
}
