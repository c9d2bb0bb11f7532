// agentsvc for the streams row: project-streams (demo model, one token per second) served by
// `startServer` in its own process; prints its URL on stdout, shuts down on SIGTERM.
import { resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { startServer } from "@agentsvc/server";
import pino from "pino";

// BENCH_PROJECT_DIR: another project (a fresh copy with the database-memory agent).
const loaded = await loadProject(
  process.env.BENCH_PROJECT_DIR ?? resolve(import.meta.dirname, "../../project-streams"),
);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
const server = await startServer(loaded.project, { port: 0, logger: pino({ level: "silent" }), drainMs: 0 });
console.log(server.url);
process.on("SIGTERM", () => server.shutdown().then(() => process.exit(0)));
