// `@agentsvc/server/testing`: a project folder served by the real agentsvc server on 127.0.0.1,
// with its gateway entries patched (to point platform URLs at fakes) and a fresh store: end-to-end
// tests through the exact route mounting, raw-body handling and adapter loading a deployment uses.
// It lives here, not in @agentsvc/testkit, so the fakes do not depend on the server (the server's
// tests use the fakes).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadProject, type PushGatewayEntry } from "@agentsvc/config-schema";
import { type RunningServer, startServer } from "./listen.js";
import { claimData, type DataClaim } from "./testing-data-claim.js";
import { type Logger, pino } from "pino";

export interface ProjectServerOptions {
  env: Record<string, string>;
  /** Rewrites each push-style entry before the server starts (e.g. `apiBaseUrl: fake.url`). */
  patchGateway?: (entry: PushGatewayEntry) => PushGatewayEntry;
  logger?: Logger;
  /** Port on 127.0.0.1. Default 0: any free port (tests); a demo may want a fixed one. */
  port?: number;
}

export interface ProjectServer extends RunningServer {
  /** `<url>/webhooks/<type>` */
  webhookUrl(type: string): string;
  /** Shuts the server down and removes the project's data/ folder (once the test file's last server on it stops). */
  close(): Promise<void>;
}

/**
 * Starts `root` (a project folder; its adapters resolve from there) with a clean `data/` folder.
 * Several servers of one test file may serve one folder (instances of one cluster): the first
 * clears `data/`, the last `close` removes it. A folder served by another test file's live server
 * is refused, not cleared under it (testing-data-claim.ts). `shutdown` keeps `data/` to read. Both
 * remove the server's build folder (a temp folder of its own, its built pages).
 */
export async function startProjectServer(
  root: string,
  options: ProjectServerOptions,
): Promise<ProjectServer> {
  const claim = claimData(join(root, "data"));
  try {
    return await serve(root, options, claim);
  } catch (err) {
    claim.release(false);
    throw err;
  }
}

async function serve(root: string, options: ProjectServerOptions, claim: DataClaim): Promise<ProjectServer> {
  const loaded = await loadProject(root);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => `${e.file}: ${e.path}: ${e.message}`).join("\n"));
  const patch = options.patchGateway ?? ((entry: PushGatewayEntry) => entry);
  const project = { ...loaded.project, pushGateways: loaded.project.pushGateways.map(patch) };
  // The built pages, in a temp folder of this server's own: removed when it stops (a test run
  // left hundreds behind).
  const buildDir = mkdtempSync(join(tmpdir(), "agentsvc-testkit-build-"));
  const removeBuild = () => rmSync(buildDir, { recursive: true, force: true });
  let server: RunningServer;
  try {
    server = await startServer(project, {
      port: options.port ?? 0,
      logger: options.logger ?? pino({ level: process.env.TESTKIT_LOG ?? "silent" }),
      env: options.env,
      buildDir,
      interactive: false,
    });
  } catch (err) {
    removeBuild();
    throw err;
  }
  return {
    ...server,
    webhookUrl: (type) => `${server.url}/webhooks/${type}`,
    shutdown: async () => {
      await server.shutdown();
      removeBuild();
      claim.release(false);
    },
    close: async () => {
      await server.shutdown();
      removeBuild();
      claim.release(true);
    },
  };
}
