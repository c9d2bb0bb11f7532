// `/agent/invoke` throughput and `/agent/stream` time to first chunk, each beside a bare Hono
// handler that calls the same demo model in-process (servers/bare.ts). Each server runs in its
// own process and the load comes from this one, so the figures are the servers' own capacity.
import { copyFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import autocannon from "autocannon";
import { startChildServer } from "./child-server.ts";
import { freshProject } from "./fresh-project.ts";
import { fsyncLatencyMs } from "./disk.ts";
import { cpuSecondsOf, machineLoad } from "./proc.ts";
import { fmt, percentile, type Row } from "./stats.ts";

const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = 10;
/** Bare and route loads alternate this many times; the median round is reported (drift hits both). */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const TTFC_SAMPLES = 300;

/**
 * The same workload on both sides: the bare handler sends the model a 1-message prompt, so each
 * route request names its own conversation. The route still loads (empty) and appends window
 * memory every turn, but its model sees the same 1-message prompt instead of a history that
 * grew to the window size (20 messages) in one shared conversation.
 */
export const INVOKE_WORKLOAD = "one new conversation per request (1-message prompt on both sides)";
let conversationSeq = 0;

async function load(
  url: string,
  ownConversation = false,
  pid?: number,
): Promise<{ rps: number; p50: number; p99: number; cpuUsPerRequest: number }> {
  const cpuBefore = pid ? cpuSecondsOf(pid) : Number.NaN;
  const body = (conversationId?: string) =>
    JSON.stringify(
      conversationId ? { input: "hello benchmark", conversationId } : { input: "hello benchmark" },
    );
  const result = await autocannon({
    url,
    method: "POST",
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: { "content-type": "application/json" },
    body: body(),
    ...(ownConversation
      ? {
          requests: [
            {
              setupRequest: (req) => ({
                ...req,
                body: body(`bench-${process.pid}-${++conversationSeq}`),
              }),
            },
          ],
        }
      : {}),
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const cpuUsPerRequest = pid ? ((cpuSecondsOf(pid) - cpuBefore) * 1e6) / result.requests.total : Number.NaN;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuUsPerRequest };
}

async function firstChunkMs(url: string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < TTFC_SAMPLES; i++) {
    const start = performance.now();
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ input: `first chunk ${i}` }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let seen = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
      if (seen.includes("event: chunk")) {
        samples.push(performance.now() - start);
        break;
      }
    }
    await reader.cancel();
  }
  return samples;
}

/**
 * BENCH_BEFORE_TREE=<worktree of an older commit, built>: the same durable route served by that
 * tree's packages (this tree's server script copied there), measured in the same rounds.
 */
async function startBefore(tree: string) {
  const project = freshProject("project-db", tree);
  const script = join(tree, "tooling/bench/src/servers/route.ts");
  copyFileSync(resolve(import.meta.dirname, "servers/route.ts"), script);
  const server = await startChildServer(script, { BENCH_PROJECT_DIR: project.dir });
  return { server, project };
}

export async function benchAgentRoute(): Promise<Row[]> {
  const beforeTree = process.env.BENCH_BEFORE_TREE;
  const full = await startChildServer(resolve(import.meta.dirname, "servers/route.ts"));
  const bare = await startChildServer(resolve(import.meta.dirname, "servers/bare.ts"));
  // The same route with the default durable (database) memory: every turn commits to SQLite.
  const dbProject = freshProject("project-db");
  const durable = await startChildServer(resolve(import.meta.dirname, "servers/route.ts"), {
    BENCH_PROJECT_DIR: dbProject.dir,
  });
  // The same with durability `process`: the store's own cost without waiting for the disk.
  const processProject = freshProject("project-db");
  writeFileSync(join(processProject.dir, "agentsvc.config.yaml"), "store:\n  durability: process\n");
  const unsynced = await startChildServer(resolve(import.meta.dirname, "servers/route.ts"), {
    BENCH_PROJECT_DIR: processProject.dir,
  });
  const before = beforeTree ? await startBefore(beforeTree) : undefined;
  try {
    // Warm both paths before measuring.
    await load(`${bare.url}/invoke`).catch(() => undefined);
    await load(`${full.url}/agent/invoke`, true).catch(() => undefined);
    await load(`${durable.url}/agent/invoke`, true).catch(() => undefined);
    await load(`${unsynced.url}/agent/invoke`, true).catch(() => undefined);
    if (before) await load(`${before.server.url}/agent/invoke`, true).catch(() => undefined);
    type Load = Awaited<ReturnType<typeof load>>;
    const rounds: {
      bare: Load;
      node: Load;
      durableBare: Load;
      full: Load;
      db: Load;
      unsynced: Load;
      old?: Load;
    }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const bareRound = await load(`${bare.url}/invoke`, false, bare.pid);
      const nodeRound = await load(`${bare.url}/invoke-node`);
      const durableBareRound = await load(`${bare.url}/invoke-durable`, true);
      const fullRound = await load(`${full.url}/agent/invoke`, true, full.pid);
      const dbRound = await load(`${durable.url}/agent/invoke`, true, durable.pid);
      const unsyncedRound = await load(`${unsynced.url}/agent/invoke`, true, unsynced.pid);
      const oldRound = before ? await load(`${before.server.url}/agent/invoke`, true) : undefined;
      rounds.push({
        bare: bareRound,
        node: nodeRound,
        durableBare: durableBareRound,
        full: fullRound,
        db: dbRound,
        unsynced: unsyncedRound,
        old: oldRound,
      });
      if (process.env.BENCH_DEBUG)
        console.error(
          `round ${i + 1}: bare ${fmt(bareRound.rps, 0)} bare-node ${fmt(nodeRound.rps, 0)} bare-durable ${fmt(durableBareRound.rps, 0)} route ${fmt(fullRound.rps, 0)} route+database ${fmt(dbRound.rps, 0)} (process ${fmt(unsyncedRound.rps, 0)})${oldRound ? ` before+database ${fmt(oldRound.rps, 0)}` : ""} req/s; CPU us/request bare ${fmt(bareRound.cpuUsPerRequest, 0)} route ${fmt(fullRound.cpuUsPerRequest, 0)} database ${fmt(dbRound.cpuUsPerRequest, 0)} process ${fmt(unsyncedRound.cpuUsPerRequest, 0)} (${machineLoad()})`,
        );
    }
    const fsyncMs = fsyncLatencyMs(dbProject.dir);
    rounds.sort((a, b) => a.full.rps / a.bare.rps - b.full.rps / b.bare.rps);
    const median = rounds[Math.floor(rounds.length / 2)] as (typeof rounds)[number];
    const { bare: bareInvoke, node: nodeInvoke, full: fullInvoke } = median;
    const ratios = rounds.map((r) => r.full.rps / r.bare.rps);
    const spread = `${fmt(Math.min(...ratios))}–${fmt(Math.max(...ratios))}`;
    const dbRatios = rounds.map((r) => r.db.rps / r.bare.rps).sort((a, b) => a - b);
    const dbMedian = rounds.find((r) => r.db.rps / r.bare.rps === dbRatios[Math.floor(dbRatios.length / 2)]);
    const unsyncedRatios = rounds.map((r) => r.unsynced.rps / r.bare.rps).sort((a, b) => a - b);
    const unsyncedMedian = rounds.find(
      (r) => r.unsynced.rps / r.bare.rps === unsyncedRatios[Math.floor(unsyncedRatios.length / 2)],
    );
    const medianOf = <T>(values: T[], of: (v: T) => number) => percentile(values.map(of), 50);
    const oldRatios = rounds.flatMap((r) => (r.old ? [r.db.rps / r.old.rps] : [])).sort((a, b) => a - b);
    const bareTtfc = percentile(await firstChunkMs(`${bare.url}/stream`), 50);
    const fullTtfc = percentile(await firstChunkMs(`${full.url}/agent/stream`), 50);
    const beforeRows: Row[] = oldRatios.length
      ? [
          {
            metric: `/agent/invoke req/s, database memory, vs the same route at ${beforeTree} (same rounds; per round ${rounds.map((r) => `${fmt(r.db.rps, 0)}/${fmt(r.old?.rps ?? Number.NaN, 0)}`).join(", ")})`,
            value: fmt(dbMedian?.db.rps ?? Number.NaN, 0),
            baseline: `before ${fmt(dbMedian?.old?.rps ?? Number.NaN, 0)}`,
            ratio: `${fmt(oldRatios[Math.floor(oldRatios.length / 2)] as number)}x (median round ratio)`,
            target: "(no regression: >= 1x)",
          },
        ]
      : [];
    return [
      ...beforeRows,
      {
        metric: `/agent/invoke req/s (median of ${ROUNDS} alternating rounds; spread ${spread})`,
        value: fmt(fullInvoke.rps, 0),
        baseline: fmt(bareInvoke.rps, 0),
        ratio: `${fmt(fullInvoke.rps / bareInvoke.rps)}x`,
        target: ">= 0.70x",
      },
      {
        metric: `/agent/invoke req/s, database memory (new conversation per request; median of ${ROUNDS}; spread ${fmt(dbRatios[0] as number)}–${fmt(dbRatios[dbRatios.length - 1] as number)}; ${machineLoad()})`,
        value: fmt(dbMedian?.db.rps ?? Number.NaN, 0),
        baseline: fmt(dbMedian?.bare.rps ?? Number.NaN, 0),
        ratio: `${fmt(dbRatios[Math.floor(dbRatios.length / 2)] as number)}x`,
        target: ">= 0.9x",
      },
      {
        metric: `/agent/invoke req/s, database memory, vs a bare handler keeping the conversation in better-sqlite3 itself (WAL, synchronous = FULL, one transaction per turn; per round ${rounds.map((r) => `${fmt(r.db.rps, 0)}/${fmt(r.durableBare.rps, 0)}`).join(", ")})`,
        value: fmt(dbMedian?.db.rps ?? Number.NaN, 0),
        baseline: fmt(dbMedian?.durableBare.rps ?? Number.NaN, 0),
        ratio: `${fmt(medianOf(rounds, (r) => r.db.rps / r.durableBare.rps))}x`,
        target: "(no target: the same durable work done the plain way)",
      },
      {
        // Each request waits for the sync that makes its turn durable: with CONNECTIONS requests in
        // flight, no server answers more than CONNECTIONS per sync, whatever its CPU.
        metric: `/agent/invoke database memory: the disk's ceiling at ${CONNECTIONS} connections (${CONNECTIONS} / fdatasync p50 ${fmt(fsyncMs, 2)} ms, measured in this run)`,
        value: fmt(dbMedian?.db.rps ?? Number.NaN, 0),
        baseline: `ceiling ${fmt((CONNECTIONS * 1000) / fsyncMs, 0)}`,
        ratio: `${fmt((dbMedian?.db.rps ?? Number.NaN) / ((CONNECTIONS * 1000) / fsyncMs))}x`,
        target: "(no target: how close durability power comes to what the disk allows)",
      },
      {
        metric: `/agent/invoke req/s, database memory with durability process (no wait for the disk; median of ${ROUNDS}; spread ${fmt(unsyncedRatios[0] as number)}–${fmt(unsyncedRatios[unsyncedRatios.length - 1] as number)})`,
        value: fmt(unsyncedMedian?.unsynced.rps ?? Number.NaN, 0),
        baseline: fmt(unsyncedMedian?.bare.rps ?? Number.NaN, 0),
        ratio: `${fmt(unsyncedRatios[Math.floor(unsyncedRatios.length / 2)] as number)}x`,
        target: "(no target: the store's CPU without the disk)",
      },
      {
        metric:
          "/agent/invoke server CPU us per request: window memory / database (power) / database (process) vs bare (median round)",
        value: `${fmt(
          medianOf(rounds, (r) => r.full.cpuUsPerRequest),
          0,
        )} / ${fmt(
          medianOf(rounds, (r) => r.db.cpuUsPerRequest),
          0,
        )} / ${fmt(
          medianOf(rounds, (r) => r.unsynced.cpuUsPerRequest),
          0,
        )}`,
        baseline: fmt(
          medianOf(rounds, (r) => r.bare.cpuUsPerRequest),
          0,
        ),
        ratio: `${fmt(medianOf(rounds, (r) => r.db.cpuUsPerRequest) / medianOf(rounds, (r) => r.bare.cpuUsPerRequest))}x (database)`,
        target: "(CPU per request survives load; throughput does not)",
      },
      {
        metric: "/agent/invoke req/s vs a bare handler reading the body from the Node request",
        value: fmt(fullInvoke.rps, 0),
        baseline: fmt(nodeInvoke.rps, 0),
        ratio: `${fmt(fullInvoke.rps / nodeInvoke.rps)}x`,
        target: "(no target: what the route costs beyond that shortcut)",
      },
      {
        metric: "/agent/invoke p50 / p99 ms",
        value: `${fmt(fullInvoke.p50, 1)} / ${fmt(fullInvoke.p99, 1)}`,
        baseline: `${fmt(bareInvoke.p50, 1)} / ${fmt(bareInvoke.p99, 1)}`,
        ratio: `${fmt(fullInvoke.p50 / Math.max(bareInvoke.p50, 0.01))}x`,
        target: "",
      },
      {
        metric: "/agent/stream first chunk p50 ms",
        value: fmt(fullTtfc, 3),
        baseline: fmt(bareTtfc, 3),
        ratio: `+${fmt(fullTtfc - bareTtfc, 3)} ms`,
        target: "<= +1 ms",
      },
    ];
  } finally {
    await full.stop();
    await bare.stop();
    await durable.stop();
    await unsynced.stop();
    dbProject.remove();
    processProject.remove();
    if (before) {
      await before.server.stop();
      before.project.remove();
    }
  }
}
