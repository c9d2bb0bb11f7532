import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { postgresBinDir, postgresMissing } from "../src/index.js";

const pkg = resolve(import.meta.dirname, "..");

// A fresh process importing the built package (dist/: `pnpm build` runs before the tests) starts a
// server, says where it is, and waits to be killed.
const CHILD = `
const { startPostgres } = await import(process.argv[1]);
const pg = await startPostgres();
console.log(JSON.stringify({ port: pg.port, dataDir: pg.dataDir }));
setInterval(() => {}, 60_000);
`;

/** Runs `child` (ESM, argv[1] is the built module `file` of this package) until it prints a line. */
async function starter(child: string, file: string, ...args: string[]) {
  const proc = spawn(
    process.execPath,
    ["--input-type=module", "-e", child, pathToFileURL(join(pkg, "dist", file)).href, ...args],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  const line = await new Promise<string>((ok, fail) => {
    proc.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) ok(out.trim());
    });
    proc.once("exit", (code) => fail(new Error(`the starter exited with ${code} before it was ready`)));
  });
  const killed = async () => {
    const gone = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGKILL");
    if (proc.exitCode === null && proc.signalCode === null) await gone;
  };
  return { line, killed };
}

function answers(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => done(false));
  });
}

describe.skipIf(postgresMissing)("a test PostgreSQL whose starter is killed", () => {
  it("ends, and its folder is deleted, when the process that started it is SIGKILLed", async () => {
    const started = await starter(CHILD, "index.js");
    const { port, dataDir } = JSON.parse(started.line) as { port: number; dataDir: string };
    try {
      expect(await answers(port)).toBe(true);
      await started.killed();
      // A generous bound for a loaded machine: this proves the server ends, not how fast.
      await expect.poll(() => answers(port), { timeout: 30_000, interval: 100 }).toBe(false);
      await expect.poll(() => existsSync(dirname(dataDir)), { timeout: 10_000, interval: 100 }).toBe(false);
    } finally {
      await started.killed();
      // Without a watchdog the server is still up here: stop it, so a red run leaves nothing behind.
      if (existsSync(join(dataDir, "postmaster.pid"))) {
        const pgCtl = join(postgresBinDir()!, "pg_ctl");
        const args = ["-D", dataDir, "-m", "immediate", "-w", "stop"];
        const asRoot = process.getuid?.() === 0;
        execFileSync(
          asRoot ? "/usr/sbin/runuser" : pgCtl,
          asRoot ? ["-u", "postgres", "--", pgCtl, ...args] : args,
          {
            stdio: "ignore",
          },
        );
      }
      rmSync(dirname(dataDir), { recursive: true, force: true });
    }
  }, 60_000);

  it("waits for the pid file of a server still starting when its starter is killed, then stops it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentsvc-pg-watchdog-"));
    const out = mkdtempSync(join(tmpdir(), "agentsvc-pg-watchdog-out-"));
    const pidFile = join(dir, "postmaster.pid");
    // The stop command records the pid file it found (empty when there was none).
    const watching = await starter(
      `const { watchServer } = await import(process.argv[1]);
       watchServer(process.argv[2], process.argv[3], ["/bin/sh", ["-c", 'cat "$0" > "$1"', process.argv[3], process.argv[4]]]);
       console.log("watching");
       setInterval(() => {}, 60_000);`,
      "watchdog.js",
      dir,
      pidFile,
      join(out, "seen"),
    );
    try {
      expect(watching.line).toBe("watching");
      await watching.killed();
      // The server writes its pid file after its starter is gone.
      await new Promise((r) => setTimeout(r, 500));
      writeFileSync(pidFile, "4242\n");
      await expect
        .poll(() => existsSync(dir) || !existsSync(join(out, "seen")), { timeout: 30_000, interval: 100 })
        .toBe(false);
      expect(readFileSync(join(out, "seen"), "utf8")).toBe("4242\n");
    } finally {
      await watching.killed();
      rmSync(dir, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
