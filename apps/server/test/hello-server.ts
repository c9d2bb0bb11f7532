import { resolve } from "node:path";
import { loadProject, type Project } from "@agentsvc/config-schema";
import pino from "pino";
import { testTempDir } from "../../../tooling/vitest.temp-dirs.js";
import { type ListenOptions, type RunningServer, startServer } from "../src/index.js";

export const helloDir = resolve(import.meta.dirname, "../../../examples/hello");

/** The hello example, with its store and build output moved to a fresh temp dir (removed when the test file ends). */
export async function helloProject(): Promise<Project> {
  const loaded = await loadProject(helloDir);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => `${e.file}: ${e.path}: ${e.message}`).join("\n"));
  const root = testTempDir("agentsvc-server-");
  return { ...loaded.project, root };
}

export async function startHello(options: ListenOptions = {}): Promise<RunningServer> {
  const project = await helloProject();
  return startServer(project, { port: 0, logger: pino({ level: "silent" }), ...options });
}
