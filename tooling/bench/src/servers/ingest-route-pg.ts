// agentsvc serving the ingest project on PostgreSQL (BENCH_PG_URL); several of these processes
// form a cluster over one database. Prints its URL on stdout. BENCH_CALLBACK_URL: every reply is
// also POSTed there (the http entry's callbackUrl), the send a callback deployment pays.
// BENCH_PG_POOL: the store's pool size (the datasource's `pool`, 10 in the project), for
// cluster-cost's BENCH_CLUSTER_POOLS.
import { resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { startServer } from "@agentsvc/server";
import pino from "pino";

const loaded = await loadProject(resolve(import.meta.dirname, "../../project-ingest-pg"));
if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
const callbackUrl = process.env.BENCH_CALLBACK_URL;
if (callbackUrl) for (const c of loaded.project.channels) if (c.type === "http") c.callbackUrl = callbackUrl;
const pool = process.env.BENCH_PG_POOL;
if (pool)
  for (const d of Object.values(loaded.project.config.datasources))
    if (d.type === "postgres") d.pool = Number(pool);
const server = await startServer(loaded.project, { port: 0, logger: pino({ level: "silent" }) });
console.log(server.url);
process.on("SIGTERM", () => server.shutdown().then(() => process.exit(0)));
