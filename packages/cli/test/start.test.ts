import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BOT_AGENT, repoRoot, tempDir, writeFiles } from "./helpers.js";

// Runs the built bin (dist/); `pnpm build` comes first in the README's test command and in CI.
const bin = join(repoRoot, "packages/cli/bin/agentsvc.js");
let child: ChildProcess | undefined;

afterEach(() => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
});

function startBin(
  dir: string,
  env: Record<string, string> = {},
): { proc: ChildProcess; url: Promise<string>; output: () => string } {
  let output = "";
  const proc = spawn(process.execPath, [bin, "start", dir, "--port", "0"], {
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = proc;
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line:\n${output}`)), 30_000);
    const onData = (data: Buffer) => {
      output += data.toString();
      const match = /listening (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    proc.stdout?.on("data", onData);
    proc.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    proc.once("exit", (code) => reject(new Error(`exited ${code} before listening:\n${output}`)));
  });
  return { proc, url, output: () => output };
}

const exited = (proc: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (proc.exitCode !== null) resolve(proc.exitCode);
    else proc.once("exit", (code) => resolve(code));
  });

describe("agentsvc start", () => {
  it("serves the project's agent route and stops cleanly on SIGTERM", async () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
      "agentsvc.config.json": JSON.stringify({ port: 1 }),
    });
    const { proc, url } = startBin(dir);
    const base = await url;
    const res = await fetch(`${base}/agent/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "ping from the cli test" }),
    });
    expect(((await res.json()) as { output: string }).output).toContain("ping from the cli test");
    proc.kill("SIGTERM");
    expect(await exited(proc)).toBe(0);
  });

  it("once serving keeps its YAML files' data, and a restart serves from the kept data", async () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
    });
    const first = startBin(dir);
    await first.url;
    first.proc.kill("SIGTERM");
    expect(await exited(first.proc)).toBe(0);
    const cacheFile = join(dir, ".agentsvc", "yaml-cache.json");
    const kept = JSON.parse(readFileSync(cacheFile, "utf8"));
    expect(kept.files["gateways/agent.yaml"].value).toEqual({ exposes: "agent", path: "/agent" });
    // A restart takes the route from the kept data (edited here), not from a new parse of the file.
    kept.files["gateways/agent.yaml"].value.path = "/kept";
    writeFileSync(cacheFile, JSON.stringify(kept));
    const second = startBin(dir);
    const base = await second.url;
    const res = await fetch(`${base}/kept/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "from the kept route" }),
    });
    expect(res.status).toBe(200);
    second.proc.kill("SIGTERM");
    expect(await exited(second.proc)).toBe(0);
  });

  it("prints every error of a broken project and exits 1 without listening", async () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/agent.yaml": "exposes: agent\n",
    });
    const { proc, url, output } = startBin(dir);
    await expect(url).rejects.toThrow(/exited 1/);
    expect(await exited(proc)).toBe(1);
    expect(output()).toContain("gateways/agent.yaml: path:");
  });

  // The bundle once made prom-client a chunk with only a default export (scripts/bundle.mjs).
  it("with a metrics block serves Prometheus series on /metrics", async () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
      "agentsvc.config.json": JSON.stringify({ metrics: { path: "/metrics" } }),
    });
    const { proc, url, output } = startBin(dir);
    const base = await url;
    await fetch(`${base}/agent/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "counted" }),
    });
    const res = await fetch(`${base}/metrics`);
    expect(res.status, output()).toBe(200);
    expect(await res.text()).toMatch(
      /^agentsvc_http_requests_total\{route="\/agent\/invoke",method="POST",status="200"\} 1$/m,
    );
    proc.kill("SIGTERM");
    expect(await exited(proc)).toBe(0);
  });

  // idle-trim.ts: the heap a start grew is given back once no request came for a second.
  it("once idle after its first answer, gives back heap and says so at debug level", async () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
    });
    const { proc, url, output } = startBin(dir, { LOG_LEVEL: "debug" });
    const base = await url;
    const res = await fetch(`${base}/agent/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "before the trim" }),
    });
    expect(res.status).toBe(200);
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no trim line in 30 s:\n${output()}`)), 30_000);
      const look = () => {
        const found = output()
          .split("\n")
          .find((l) => l.includes("heap trimmed after start"));
        if (!found) return;
        clearTimeout(timer);
        proc.stdout?.off("data", look);
        resolve(found);
      };
      proc.stdout?.on("data", look);
      look();
    });
    const trim = JSON.parse(line) as { heapMiB: { before: number; after: number } };
    expect(trim.heapMiB.after).toBeLessThan(trim.heapMiB.before);
    proc.kill("SIGTERM");
    expect(await exited(proc)).toBe(0);
  });
});
