import { execFileSync, spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
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
    const starter = spawn(
      process.execPath,
      ["--input-type=module", "-e", CHILD, pathToFileURL(join(pkg, "dist/index.js")).href],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    const { port, dataDir } = await new Promise<{ port: number; dataDir: string }>((ok, fail) => {
      starter.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) ok(JSON.parse(out));
      });
      starter.once("exit", (code) =>
        fail(new Error(`the starter exited with ${code} before its server was up`)),
      );
    });
    try {
      expect(await answers(port)).toBe(true);
      const gone = new Promise((r) => starter.once("exit", r));
      starter.kill("SIGKILL");
      await gone;
      // A generous bound for a loaded machine: this proves the server ends, not how fast.
      await expect.poll(() => answers(port), { timeout: 30_000, interval: 100 }).toBe(false);
      await expect.poll(() => existsSync(dirname(dataDir)), { timeout: 10_000, interval: 100 }).toBe(false);
    } finally {
      starter.kill("SIGKILL");
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
});
