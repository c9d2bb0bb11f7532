import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadProject } from "@agentsvc/config-schema";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { StoreSet } from "../src/stores.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function primaryOf(config: string) {
  const root = mkdtempSync(join(tmpdir(), "store-durability-"));
  dirs.push(root);
  writeFileSync(join(root, "agentsvc.config.yaml"), config);
  mkdirSync(join(root, "agents"));
  // The project lives in the OS temp dir: its agent imports agent-core by the URL this package resolves.
  const core = pathToFileURL(createRequire(import.meta.url).resolve("@agentsvc/agent-core")).href;
  writeFileSync(
    join(root, "agents/a.mjs"),
    `import { defineAgent } from ${JSON.stringify(core)};\nexport default defineAgent({ name: "a", model: { provider: "demo" } });\n`,
  );
  const loaded = await loadProject(root);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const stores = new StoreSet(loaded.project, pino({ level: "silent" }));
  try {
    return (await stores.primary()).durability;
  } finally {
    await stores.close();
  }
}

describe("store.durability", () => {
  it("opens the project's SQLite store with durability power by default and process with durability: process", async () => {
    expect(await primaryOf("port: 0\n")).toBe("power");
    expect(await primaryOf("store:\n  durability: process\n")).toBe("process");
  });
});
