import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BOT_AGENT, repoRoot, tempDir, writeFiles } from "./helpers.js";

// Runs the built bin (dist/); `pnpm build` comes first in the README's test command and in CI.
const bin = join(repoRoot, "packages/cli/bin/agentsvc.js");
let dev: ChildProcess | undefined;

afterEach(() => {
  if (dev && dev.exitCode === null) dev.kill("SIGKILL");
});

/** Resolves with the output once `pattern` has matched `count` times. */
function waitFor(proc: ChildProcess, read: () => string, pattern: RegExp, count: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}:\n${read()}`)), 30_000);
    const check = () => {
      if ((read().match(new RegExp(pattern, "g")) ?? []).length >= count) {
        clearTimeout(timer);
        resolve(read());
      }
    };
    proc.stdout?.on("data", check);
    proc.stderr?.on("data", check);
    check();
  });
}

describe("agentsvc dev", () => {
  it("restarts the service when a project file changes and serves the new version", async () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/agent.yaml": "exposes: agent\npath: /v1\n",
    });
    let output = "";
    dev = spawn(process.execPath, [bin, "dev", dir, "--port", "0"], {
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    dev.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    dev.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    await waitFor(dev, () => output, /listening http/, 1);

    writeFileSync(join(dir, "gateways/agent.yaml"), "exposes: agent\npath: /v2\n");
    const after = await waitFor(dev, () => output, /listening http/, 2);
    expect(after).toContain("gateways/agent.yaml changed, restarting");
    const url = [...after.matchAll(/listening (http:\/\/\S+)/g)].at(-1)?.[1] as string;
    const res = await fetch(`${url}/v2/info`);
    expect(res.status).toBe(200);

    dev.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => dev?.once("exit", resolve));
    expect(code).toBe(0);
  });
});
