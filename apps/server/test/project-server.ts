// A project written file by file into a fresh folder and served by the composed server, for tests
// that need a project of their own (an agent on a provider fake, a gateway, schedules, prices).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { loadProject } from "@agentsvc/config-schema";
import pino from "pino";
import { type RunningServer, startServer } from "../src/index.js";

export interface ProjectServerOptions {
  /** The project's files by path from its root (package.json is written when left out). */
  files: Record<string, string>;
  /** The server's environment (the secrets the entries name). */
  env: Record<string, string>;
  /** Workspace adapter packages linked into the project's node_modules, as an installed app has them. */
  adapters?: string[];
}

export interface ProjectServer {
  root: string;
  server: RunningServer;
  /** The project's store, opened apart from the server's (the caller closes it). */
  openStore(): ChatDb;
  /** Stops the server and deletes the project and its build output. */
  close(): Promise<void>;
}

/**
 * Writes the project under test/fixtures (so its modules resolve the server's node_modules, e.g. an
 * agent importing @agentsvc/agent-core), loads it and serves it on a free port, logging nothing.
 */
export async function startProjectServer(
  name: string,
  options: ProjectServerOptions,
): Promise<ProjectServer> {
  const root = mkdtempSync(resolve(import.meta.dirname, `fixtures/.${name}-`));
  const buildDir = mkdtempSync(join(tmpdir(), `agentsvc-${name}-build-`));
  const remove = () => {
    rmSync(root, { recursive: true, force: true });
    rmSync(buildDir, { recursive: true, force: true });
  };
  try {
    const files = {
      "package.json": JSON.stringify({ name: `${name}-fixture`, private: true, type: "module" }),
      ...options.files,
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    for (const adapter of options.adapters ?? []) {
      mkdirSync(join(root, "node_modules/@agentsvc"), { recursive: true });
      symlinkSync(
        resolve(import.meta.dirname, `../../../packages/${adapter}`),
        join(root, `node_modules/@agentsvc/${adapter}`),
        "dir",
      );
    }
    const loaded = await loadProject(root);
    if (!loaded.ok)
      throw new Error(loaded.errors.map((e) => `${e.file}: ${e.path}: ${e.message}`).join("\n"));
    const server = await startServer(loaded.project, {
      port: 0,
      logger: pino({ level: "silent" }),
      env: options.env,
      buildDir,
      interactive: false,
    });
    return {
      root,
      server,
      openStore: () => ChatDb.open({ appRoot: root, path: "data/agentsvc.db" }),
      close: async () => {
        await server.shutdown();
        remove();
      },
    };
  } catch (err) {
    remove();
    throw err;
  }
}
