// A postgres datasource's maxHeldThreads is read on the store's datasource only: set on another one
// (here the store is SQLite), start says it does nothing instead of ignoring it without a word.
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../src/index.js";
import { startServer } from "../src/index.js";
import { helloProject } from "./hello-server.js";

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.shutdown();
  server = undefined;
});

async function startWith(datasources: Record<string, unknown>): Promise<string[]> {
  const lines: string[] = [];
  const project = await helloProject();
  const withDs = { ...project, config: { ...project.config, datasources } } as typeof project;
  server = await startServer(withDs, {
    port: 0,
    logger: pino({ level: "warn" }, { write: (l: string) => void lines.push(l) }),
  });
  return lines.map((l) => JSON.parse(l).msg as string);
}

describe("maxHeldThreads on a datasource that is not the store", () => {
  it("is named in a warning at start: it has no effect there", async () => {
    const said = await startWith({
      reports: { type: "postgres", urlEnvVar: "REPORTS_URL", maxHeldThreads: 5 },
    });
    expect(said).toContain(
      "datasources.reports.maxHeldThreads has no effect: it is read on the store's datasource only (the store is SQLite)",
    );
  });

  it("is not warned about when unset", async () => {
    const said = await startWith({ reports: { type: "postgres", urlEnvVar: "REPORTS_URL" } });
    expect(said.filter((m) => m.includes("maxHeldThreads"))).toEqual([]);
  });
});
