import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { bin, cleanEnv } from "./child.js";
import { BOT_AGENT, tempDir, writeFiles } from "./helpers.js";

let holder: Server | undefined;
afterEach(() => holder?.close());

describe("agentsvc dev on a port another program holds", () => {
  it("prints why and exits 1 instead of waiting for edits", async () => {
    const held = createServer();
    holder = held;
    const port = await new Promise<number>((resolve) =>
      held.listen(0, "127.0.0.1", () => resolve((held.address() as { port: number }).port)),
    );
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
    });
    const proc = spawn(process.execPath, [bin, "dev", dir, "--port", String(port)], {
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    proc.stdout.on("data", (d: Buffer) => (output += d.toString()));
    proc.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => {
      // Bounded: before the fix dev kept watching, so the test kills it and fails on the code.
      const timer = setTimeout(() => {
        proc.kill("SIGKILL");
        resolve(null);
      }, 20_000);
      proc.once("exit", (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(output).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(code).toBe(1);
  }, 30_000);
});
