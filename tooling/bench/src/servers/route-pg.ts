// agentsvc on PostgreSQL: the bench project's postgres twin (durable memory in the shared store),
// one instance per process; several of them form a cluster over BENCH_PG_URL.
import { resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { startServer } from "@agentsvc/server";
import pino from "pino";

const loaded = await loadProject(resolve(import.meta.dirname, "../../project-postgres"));
if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
const server = await startServer(loaded.project, { port: 0, logger: pino({ level: "silent" }) });
console.log(server.url);
process.on("SIGTERM", () => server.shutdown().then(() => process.exit(0)));
