// agentsvc serving the ingest project on PostgreSQL (BENCH_PG_URL); several of these processes
// form a cluster over one database. Prints its URL on stdout.
import { resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { startServer } from "@agentsvc/server";
import pino from "pino";

const loaded = await loadProject(resolve(import.meta.dirname, "../../project-ingest-pg"));
if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
const server = await startServer(loaded.project, { port: 0, logger: pino({ level: "silent" }) });
console.log(server.url);
process.on("SIGTERM", () => server.shutdown().then(() => process.exit(0)));
