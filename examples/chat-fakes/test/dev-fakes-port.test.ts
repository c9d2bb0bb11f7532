// `pnpm dev:fakes -- --once --port N` as a person runs it: agentsvc listens on the port asked for,
// the conversations play, and the script exits 0; a port that is not a number is refused.
import { execFile } from "node:child_process";
import { join, resolve } from "node:path";
import { freePort } from "@agentsvc/testkit";
import { expect, it } from "vitest";

// The project folder, as scripts/conversation.ts has it: importing that module for it loaded the
// server and the fakes into this file, which runs the script in a child process (#45).
const projectDir = resolve(import.meta.dirname, "..");

const script = join(projectDir, "scripts/dev-fakes.ts");

function runScript(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, ...args],
      { cwd: projectDir, timeout: 90_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

it("serves agentsvc on the port given with --port, plays the conversations and exits with --once", async () => {
  const port = await freePort();
  const r = await runScript(["--", "--once", "--port", String(port)]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain(`agentsvc at http://127.0.0.1:${port}\n`);
  expect(r.stdout).toMatch(/\[discord\] bot: .*send_note returned/);
}, 100_000);

it("refuses a --port that is not a port number", async () => {
  const r = await runScript(["--port", "x"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('--port: expected a port number 0-65535 (got "x")');
});
