// agentsvc serving the ingest project (an `http` gateway, default database memory) from a fresh
// copy in BENCH_PROJECT_DIR, so every run starts with an empty store. Prints its URL on stdout.
import { loadProject } from "@agentsvc/config-schema";
import { startServer } from "@agentsvc/server";
import pino from "pino";
import { reportLoopDelay } from "./loop-delay.ts";

const dir = process.env.BENCH_PROJECT_DIR;
if (!dir) throw new Error("BENCH_PROJECT_DIR is not set");
const loaded = await loadProject(dir);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
const server = await startServer(loaded.project, { port: 0, logger: pino({ level: "silent" }) });
reportLoopDelay();
console.log(server.url);
process.on("SIGTERM", () => server.shutdown().then(() => process.exit(0)));
