// tooling/vitest.tmpdir.ts: a root run's temp folder on /dev/shm outlives a run killed with
// SIGKILL (its exit handler never runs); the next run's setup removes it, and leaves a live run's.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";

const module = resolve(import.meta.dirname, "../../vitest.tmpdir.ts");
// A run's setup as the root vitest.config.ts does it; with STAY set the process stays up.
const SETUP = `import { useRamTmpDir } from ${JSON.stringify(module)};
useRamTmpDir();
process.stdout.write((process.env.AGENTSVC_TEST_RUN_TMPDIR ?? "") + "\\n");
if (process.env.STAY) setInterval(() => {}, 60_000);`;

/** This run's environment without its own run folder: a child starts a run of its own. */
function runEnv(stay: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, STAY: stay ? "1" : "" };
  delete env.AGENTSVC_TEST_RUN_TMPDIR;
  delete env.AGENTSVC_TEST_TMPDIR;
  return env;
}

/** A run that stays up: its process and its run folder ("" when the machine has no room on /dev/shm). */
async function liveRun(): Promise<{ child: ChildProcess; dir: string }> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", SETUP], {
    env: runEnv(true),
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  await new Promise<void>((done, fail) => {
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) done();
    });
    child.once("exit", (code) => fail(new Error(`the run's setup exited with ${code}`)));
  });
  return { child, dir: out.trim() };
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}

it("a run's setup removes the /dev/shm folder of a run that was SIGKILLed and keeps a live run's", async (ctx) => {
  const killed = await liveRun();
  const live = await liveRun();
  try {
    if (!killed.dir) ctx.skip(); // No tmpfs with room here: runs keep the OS temp folder.
    writeFileSync(join(killed.dir, "left.db"), "x".repeat(1 << 16));
    await kill(killed.child);
    expect(existsSync(killed.dir)).toBe(true);

    const next = execFileSync(process.execPath, ["--input-type=module", "-e", SETUP], {
      env: runEnv(false),
    })
      .toString()
      .trim();
    expect(next).toMatch(/^\/dev\/shm\/agentsvc-run-\d+-/);
    expect(existsSync(next)).toBe(false); // Its own, removed at its exit.
    expect(existsSync(killed.dir)).toBe(false);
    expect(existsSync(live.dir)).toBe(true);
  } finally {
    await kill(killed.child);
    await kill(live.child);
    for (const dir of [killed.dir, live.dir]) if (dir) rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
