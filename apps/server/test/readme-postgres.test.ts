import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";

// The README's "Running on several machines" block, copied as a reader copies it, must work against
// a PostgreSQL on this machine (no TLS on loopback), with DATABASE_URL as its comment shows.
function readmeConfigBlock(): string {
  const readme = readFileSync(resolve(import.meta.dirname, "../../../README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Running on several machines"));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("no yaml block under Running on several machines");
  const lines = block.split("\n");
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)?.[0].length ?? 0));
  return lines.map((l) => l.slice(indent)).join("\n");
}

let pg: TestPostgres | undefined;
let server: RunningServer | undefined;

describe.skipIf(postgresMissing)("the README's several-machines config on a local PostgreSQL", () => {
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.shutdown();
    await pg?.stop();
  });

  it("starts as copied and answers on the agent route", async () => {
    const url = await (pg as TestPostgres).createDatabase();
    const root = mkdtempSync(join(tmpdir(), "agentsvc-readme-pg-"));
    mkdirSync(join(root, "agents"));
    mkdirSync(join(root, "gateways"));
    writeFileSync(join(root, "agentsvc.config.yaml"), readmeConfigBlock());
    writeFileSync(
      join(root, "agents/bot.mjs"),
      `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
    );
    writeFileSync(join(root, "gateways/agent.yaml"), "exposes: agent\npath: /agent\n");
    const loaded = await loadProject(root);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    server = await startServer(loaded.project, {
      port: 0,
      logger: pino({ level: "silent" }),
      env: { DATABASE_URL: url },
      interactive: false,
    });
    const res = await fetch(`${server.url}/agent/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "hello from the README" }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { output: string }).output).toContain("hello from the README");
  }, 60_000);
});
