// agentsvc for the model-provider row: the project in BENCH_PROJECT_DIR (an agent whose model is
// a testkit provider fake) served by `startServer` in its own process; prints its URL, stops on SIGTERM.
import { loadProject } from "@agentsvc/config-schema";
import { startServer } from "@agentsvc/server";
import pino from "pino";

const loaded = await loadProject(process.env.BENCH_PROJECT_DIR as string);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
const server = await startServer(loaded.project, { port: 0, logger: pino({ level: "silent" }), drainMs: 0 });
console.log(server.url);
process.on("SIGTERM", () => server.shutdown().then(() => process.exit(0)));
