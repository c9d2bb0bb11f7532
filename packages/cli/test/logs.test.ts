import { execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { bin, invoke, outputUntil, runBinAsync, type Served, serveBin } from "./child.js";
import { BOT_AGENT, tempDir, writeFiles } from "./helpers.js";

const project = () =>
  writeFiles(tempDir(), {
    "agents/bot.mjs": BOT_AGENT,
    "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
  });
let served: Served | undefined;
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

const jsonLines = (out: string) =>
  out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

function hasScript(): boolean {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("agentsvc start logs for people and for machines", () => {
  it("writes JSON lines when piped, one info line per request with method, path, status and time", async () => {
    served = await serveBin(["start", project(), "--port", "0"]);
    expect((await invoke(served.url)).status).toBe(200);
    const out = await outputUntil(served, (o) => o.includes('"/agent/invoke"'));
    const line = jsonLines(out).find(
      (l) => (l.req as { path?: string } | undefined)?.path === "/agent/invoke",
    );
    expect(line).toMatchObject({ level: 30, name: "http", req: { method: "POST" }, res: { status: 200 } });
    expect(typeof line?.responseTime).toBe("number");
    expect(line?.msg).toMatch(/^POST \/agent\/invoke 200 [\d.]+ ms$/);
  });

  it("prints human-readable lines with --log-format pretty", async () => {
    served = await serveBin(["start", project(), "--port", "0", "--log-format", "pretty"]);
    await invoke(served.url);
    const out = await outputUntil(served, (o) => o.includes("/agent/invoke 200"));
    expect(out).toMatch(/\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(http\): POST \/agent\/invoke 200 [\d.]+ ms/);
    expect(jsonLines(out)).toEqual([]);
  });

  it("escapes a newline a caller put in the path (%0a): the pretty log shows it, it starts no forged line", async () => {
    served = await serveBin(["start", project(), "--port", "0", "--log-format", "pretty"]);
    // What decodeURI gives back (Hono decodes the path so; reserved characters such as ":" stay encoded).
    const forged = "[12.00.00.000] INFO (http) POST /agent/admin 200 1 ms";
    const res = await fetch(`${served.url}/x%0a${encodeURI(forged)}%1b[2J`);
    expect(res.status).toBe(404);
    const out = await outputUntil(served, (o) => o.includes(" 404 "));
    const line = out.split("\n").find((l) => l.includes(" 404 "));
    expect(line).toContain(`GET /x\\n${forged}\\u001b[2J 404`);
    expect(out).not.toMatch(/^\[12\.00\.00\.000\] INFO/m);
    expect(out).not.toContain("\u001b[2J");
  });

  it("honours LOG_LEVEL: at warn no request lines, an unknown level stops start-up", async () => {
    served = await serveBin(["start", project(), "--port", "0"], { LOG_LEVEL: "warn" });
    await invoke(served.url);
    await invoke(served.url);
    // The second answer is in, so the first request's line would have been written by now.
    expect(served.output()).not.toContain("/agent/invoke");
    const bad = await runBinAsync(["start", project(), "--port", "0"], { LOG_LEVEL: "loud" });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      'LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    );
  });

  it.skipIf(!hasScript())("chooses pretty lines by itself on a terminal (a pty from script(1))", async () => {
    const command = `${process.execPath} ${bin} start ${project()} --port 0`;
    served = await serveBin([], {}, { file: "script", args: ["-qfec", command, "/dev/null"] });
    await invoke(served.url);
    const out = await outputUntil(served, (o) => o.includes("/agent/invoke 200"));
    expect(out).toMatch(/INFO.*\(http\).*POST \/agent\/invoke 200/);
    expect(jsonLines(out)).toEqual([]);
  });
});

describe("a port that is taken", () => {
  it("names the port and how to pick another, and exits 3 (what dev stops on)", async () => {
    const blocker = createServer();
    await new Promise<void>((ok) => blocker.listen(0, "127.0.0.1", ok));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await runBinAsync(["start", project(), "--port", String(port)]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(
        `cannot start: port ${port} on 127.0.0.1 is already in use by another program; pick another with --port <n> or the PORT variable`,
      );
    } finally {
      blocker.close();
    }
  });
});
