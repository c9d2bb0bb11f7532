import { type ChildProcess, spawn } from "node:child_process";

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
  const child: ChildProcess = spawn(process.execPath, [file], {
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
