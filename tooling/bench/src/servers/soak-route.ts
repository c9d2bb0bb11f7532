// agentsvc for the soak rows: project-soak (demo model, ten tokens 50 ms apart; memory type from
// SOAK_MEMORY) served by `startServer` in its own process, on a fresh store each run.
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { startServer } from "@agentsvc/server";
import pino from "pino";

const dir = resolve(import.meta.dirname, "../../project-soak");
rmSync(resolve(dir, "data"), { recursive: true, force: true });
const loaded = await loadProject(dir);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
const server = await startServer(loaded.project, { port: 0, logger: pino({ level: "silent" }), drainMs: 0 });
console.log(server.url);
process.on("SIGTERM", () => server.shutdown().then(() => process.exit(0)));
