// `pnpm bench`: every figure is printed beside a baseline measured in the same run, as a ratio.
import { benchAccess } from "./access.ts";
import { benchAdapterSend } from "./adapter-send.ts";
import { benchAgentRoute, INVOKE_WORKLOAD } from "./agent-route.ts";
import { benchBigMessages } from "./big-messages.ts";
import { benchCluster } from "./cluster.ts";
import { benchClusterApart } from "./cluster-apart.ts";
import { benchClusterIdle } from "./cluster-idle.ts";
import { benchOutboxDue } from "./outbox-due.ts";
import { benchIngest } from "./ingest.ts";
import { benchIngestEndToEnd } from "./ingest-e2e.ts";
import { benchIngestPostgres } from "./ingest-pg.ts";
import { benchIngestPostgresLedger } from "./ingest-pg-ledger.ts";
import { benchMemory } from "./memory.ts";
import { benchPage } from "./page.ts";
import { benchProviderLatency } from "./provider-latency.ts";
import { benchStart } from "./start.ts";
import { benchStreams } from "./streams.ts";
import { benchStreamCalls } from "./stream-calls.ts";
import { benchSchedules } from "./schedules.ts";
import { benchSoak } from "./soak.ts";
import { benchSpend } from "./spend.ts";
import { printTable } from "./stats.ts";
import { benchStore } from "./store.ts";
import { benchUploads } from "./uploads.ts";

const only = process.argv[2];
console.log(`agentsvc bench — node ${process.version}, ${new Date().toISOString()}`);
if (!only || only === "agent")
  printTable(`Agent route (demo model, tokenDelayMs 0; invoke: ${INVOKE_WORKLOAD})`, await benchAgentRoute());
if (!only || only === "provider")
  printTable(
    "Model provider (/agent/stream on an OpenAI agent vs the same fake provider called directly)",
    await benchProviderLatency(),
  );
if (!only || only === "start")
  printTable("Start-up (`agentsvc start` vs a bare @hono/node-server script)", await benchStart());
if (!only || only === "streams")
  printTable("Concurrent slow streams (/agent/stream vs a bare Hono SSE handler)", await benchStreams());
if (!only || only === "stream-calls")
  printTable(
    "Streamed replies (platform calls per reply, vs the same replies not streamed)",
    await benchStreamCalls(),
  );
if (!only || only === "adapter-send")
  printTable(
    "Chat adapters' platform calls (adapter-kit's transport vs global fetch, client CPU)",
    await benchAdapterSend(),
  );
if (!only || only === "ingest")
  printTable("Gateway ingest (signed `http` events vs a bare durable Hono handler)", await benchIngest());
// Not in the default run (the ingest table has its end-to-end row): alternated rounds for A/B.
if (only === "ingest-e2e")
  printTable(
    "Gateway end to end in alternated rounds (vs a bare durable Hono handler's ingest)",
    await benchIngestEndToEnd(),
  );
if (!only || only === "ingest-pg")
  printTable(
    "Gateway ingest on PostgreSQL (vs a bare handler inserting into the same server)",
    await benchIngestPostgres(),
  );
// Not in the default run: PostgreSQL's WAL and statement time of ingest-pg's bursts, itemised.
if (only === "ingest-pg-ledger")
  printTable("Gateway ingest on PostgreSQL: WAL and statements a message", await benchIngestPostgresLedger());
if (!only || only === "access")
  printTable(
    "Sender access (allowlist + per-sender and gateway rate limits vs an open entry; session on SQLite, demo model)",
    await benchAccess(),
  );
if (!only || only === "spend")
  printTable(
    "Budgets and the cost ledger (every call recorded, four budget scopes checked vs no meter; session on SQLite, demo model)",
    await benchSpend(),
  );
if (!only || only === "schedules")
  printTable(
    "Schedules (1,000 due in one minute on one instance; session on SQLite, demo model)",
    await benchSchedules(),
  );
if (!only || only === "store") printTable("Store (SQLite, WAL, synchronous FULL)", await benchStore());
if (!only || only === "memory")
  printTable("Turn cost against conversation length (durable memory, demo model)", await benchMemory());
if (!only || only === "cluster")
  printTable(
    "Several instances on PostgreSQL (CPU and statements per request, 1 vs 3 instances)",
    await benchCluster(),
  );
// Not in the default run (minutes of rest per configuration): the idle figure over several bursts.
if (only === "cluster-idle")
  printTable(
    "Several instances at rest after a burst (1 vs 3 instances, CPU in ticks over every round)",
    await benchClusterIdle(),
  );
// Not in the default run: a control for the cluster rows, three instances apart (no shared database).
if (only === "cluster-apart")
  printTable(
    "/agent/invoke on three instances, in a cluster and apart (alternated rounds, equal requests per instance)",
    await benchClusterApart(),
  );
if (!only || only === "outbox-due")
  printTable("The outbox's due read under a backlog (PostgreSQL, durable)", await benchOutboxDue());
if (!only || only === "page") printTable("Chat page (Chromium, real server, demo model)", await benchPage());
if (!only || only === "uploads")
  printTable("Uploads (chat page upload route, media on; server RSS)", await benchUploads());
// Not in the default run: #38's large-message attack (minutes, gigabytes of traffic).
if (only === "big-messages")
  printTable("Large messages on an open agent route (database memory)", await benchBigMessages());
// Not in the default run: four runs of ten minutes.
if (only === "soak") printTable("Soak: sustained streams on durable memory", await benchSoak());
process.exit(0);
