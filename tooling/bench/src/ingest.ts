// Signed `http` gateway ingest (verify, dedup, record, 202) at concurrency 32 against a bare Hono
// handler doing the same durable work (servers/bare-ingest.ts), and the same messages followed to
// their reply row in the outbox. Each server runs in its own process on a fresh store; rounds
// alternate and the median round is reported. BENCH_BEFORE_TREE=<worktree of an older commit,
// built> also measures that commit's server in the same rounds (the "before" of a change).
import { createHmac } from "node:crypto";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import autocannon from "autocannon";
import Database from "better-sqlite3";
import { type ChildServer, startChildServer } from "./child-server.ts";
import { machineLoad } from "./proc.ts";
import { fmt, type Row } from "./stats.ts";

const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
export const CONNECTIONS = 32;
export const SECRET = "bench-ingest-secret";
export const E2E_MESSAGES = Number(process.env.BENCH_E2E_MESSAGES ?? 2000);
export const E2E_THREADS = 200;
let seq = 0;
let timeouts = 0;

function signed(id: string, thread: string): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ id, thread, text: `hello ${id}` });
  const ts = Math.floor(Date.now() / 1000);
  const mac = createHmac("sha256", SECRET).update(`${ts}.`).update(body).digest("hex");
  return {
    body,
    headers: {
      "content-type": "application/json",
      "x-agentsvc-timestamp": String(ts),
      "x-agentsvc-signature": `v1=${mac}`,
    },
  };
}

/** req/s of signed events with fresh ids (each on its own thread) at CONNECTIONS. */
export async function ingest(
  url: string,
  options: { amount?: number; threads?: number; connections?: number } = {},
) {
  const result = await autocannon({
    url: `${url}/gateways/hooks/events`,
    method: "POST",
    connections: options.connections ?? CONNECTIONS,
    timeout: 30,
    ...(options.amount ? { amount: options.amount } : { duration: DURATION_S }),
    requests: [
      {
        setupRequest: (req) => {
          const n = ++seq;
          const thread = options.threads ? `t${n % options.threads}` : `t${process.pid}-${n}`;
          return { ...req, ...signed(`e${process.pid}-${n}`, thread) };
        },
      },
    ],
  });
  if (result.non2xx > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers`);
  // Timeouts (30 s) are counted and shown, not thrown: an overloaded "before" build has them.
  timeouts += result.errors;
  return { rps: result.requests.average, sent: result.requests.total };
}

export interface Side {
  server: ChildServer;
  dir?: string;
  loopFile: string;
}

interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/**
 * agentsvc (this tree's server, or BENCH_BEFORE_TREE's) on a fresh copy of the ingest project,
 * placed under that tree's tooling/bench so the agent file resolves its packages from there.
 */
export async function startOurs(tree?: string): Promise<Side> {
  const bench = tree ? join(tree, "tooling/bench") : resolve(import.meta.dirname, "..");
  mkdirSync(join(bench, ".runs"), { recursive: true });
  const dir = mkdtempSync(join(bench, ".runs/ingest-"));
  cpSync(resolve(import.meta.dirname, "../project-ingest"), dir, { recursive: true });
  const file = join(bench, "src/servers/ingest-route.ts");
  // The same server script in the older tree, resolving @agentsvc/* from its (built) packages.
  if (tree)
    for (const name of ["ingest-route.ts", "loop-delay.ts"])
      copyFileSync(resolve(import.meta.dirname, "servers", name), join(bench, "src/servers", name));
  const loopFile = join(dir, "loop-delay.json");
  const server = await startChildServer(file, {
    BENCH_PROJECT_DIR: dir,
    BENCH_HOOKS_SECRET: SECRET,
    BENCH_LOOP_FILE: loopFile,
  });
  return { server, dir, loopFile };
}

export async function startBare(): Promise<Side> {
  const loopFile = join(mkdtempSync(join(tmpdir(), "agentsvc-bench-loop-")), "loop-delay.json");
  return {
    server: await startChildServer(resolve(import.meta.dirname, "servers/bare-ingest.ts"), {
      BENCH_HOOKS_SECRET: SECRET,
      BENCH_LOOP_FILE: loopFile,
    }),
    loopFile,
  };
}

/** Stops the server; its event-loop delay since the last SIGUSR2 (see servers/loop-delay.ts). */
export async function stop(side: Side): Promise<LoopDelay | undefined> {
  await side.server.stop();
  let delay: LoopDelay | undefined;
  try {
    delay = JSON.parse(readFileSync(side.loopFile, "utf8")) as LoopDelay;
  } catch {
    delay = undefined;
  }
  rmSync(side.dir ?? dirname(side.loopFile), { recursive: true, force: true });
  return delay;
}

/** Messages/s from the first send until every message's turn is done (its reply row committed). */
export async function endToEnd(side: Side): Promise<{ rate: number; done: number; other: string }> {
  const file = join(side.dir as string, "data/agentsvc.db");
  const start = performance.now();
  await ingest(side.server.url, { amount: E2E_MESSAGES, threads: E2E_THREADS });
  const reader = new Database(file, { readonly: true });
  const finished = reader.prepare(
    "SELECT count(*) AS n FROM inbox WHERE status IN ('done', 'rejected', 'failed')",
  );
  const deadline = Date.now() + 120_000;
  let done = 0;
  while (Date.now() < deadline) {
    done = (finished.get() as { n: number }).n;
    if (done >= E2E_MESSAGES) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const elapsed = (performance.now() - start) / 1000;
  const byStatus = reader.prepare("SELECT status, count(*) AS n FROM inbox GROUP BY status").all() as {
    status: string;
    n: number;
  }[];
  const replies = (reader.prepare("SELECT count(*) AS n FROM outbox").get() as { n: number }).n;
  reader.close();
  return {
    rate: done / elapsed,
    done,
    other: `${byStatus.map((s) => `${s.status} ${s.n}`).join(", ")}; ${replies} outbox rows`,
  };
}

export async function benchIngest(): Promise<Row[]> {
  const before = process.env.BENCH_BEFORE_TREE;
  const loads: string[] = [machineLoad()];
  type Round = { bare: number; ours: number; old?: number; loop: Partial<Record<string, LoopDelay>> };
  const rounds: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const round: Round = { bare: 0, ours: 0, loop: {} };
    const sides: ("bare" | "ours" | "old")[] = ["bare", "ours", ...(before ? (["old"] as const) : [])];
    for (const which of sides) {
      const side =
        which === "bare" ? await startBare() : await startOurs(which === "old" ? before : undefined);
      let stopped = false;
      try {
        await ingest(side.server.url, { amount: 500 }); // warm-up, not reported
        process.kill(side.server.pid, "SIGUSR2"); // event-loop delay from here on
        round[which] = (await ingest(side.server.url)).rps;
        stopped = true;
        round.loop[which] = await stop(side);
      } finally {
        if (!stopped) await stop(side);
      }
    }
    rounds.push(round);
    loads.push(machineLoad());
    if (process.env.BENCH_DEBUG)
      console.error(
        `ingest round ${i + 1}: bare ${fmt(round.bare, 0)} agentsvc ${fmt(round.ours, 0)}${round.old !== undefined ? ` before ${fmt(round.old, 0)}` : ""} req/s (${machineLoad()}); loop delay ${JSON.stringify(round.loop)}`,
      );
  }
  rounds.sort((a, b) => a.ours / a.bare - b.ours / b.bare);
  const median = rounds[Math.floor(rounds.length / 2)] as (typeof rounds)[number];
  const ratios = rounds.map((r) => r.ours / r.bare);
  const rows: Row[] = [
    {
      metric: `gateway ingest req/s, signed http events, fresh ids, ${CONNECTIONS} connections (median of ${ROUNDS}; spread ${fmt(Math.min(...ratios))}–${fmt(Math.max(...ratios))}; ${loads.join(" → ")})`,
      value: fmt(median.ours, 0),
      baseline: `bare durable ${fmt(median.bare, 0)}`,
      ratio: `${fmt(median.ours / median.bare)}x`,
      target: `>= 0.5x (${timeouts} timed-out requests over all sides)`,
    },
  ];
  const loop = (d: LoopDelay | undefined) => (d ? `${fmt(d.p99, 1)} (max ${fmt(d.max, 0)})` : "n/a");
  rows.push({
    metric:
      "event-loop delay p99 ms during ingest (agentsvc syncs its WAL on the thread pool; the bare handler's synchronous = FULL blocks its loop)",
    value: loop(median.loop.ours),
    baseline: loop(median.loop.bare),
    ratio: median.loop.ours && median.loop.bare ? `${fmt(median.loop.ours.p99 / median.loop.bare.p99)}x` : "",
    target: "(no target: shows whether commits still block the loop)",
  });
  const oldRatios = rounds.flatMap((r) => (r.old ? [r.ours / r.old] : [])).sort((a, b) => a - b);
  if (oldRatios.length > 0)
    rows.push({
      metric: `gateway ingest req/s vs the same server at ${before} (same rounds; per round ${rounds.map((r) => `${fmt(r.ours, 0)}/${fmt(r.old ?? Number.NaN, 0)}`).join(", ")})`,
      value: fmt(median.ours, 0),
      baseline: `before ${fmt(median.old ?? Number.NaN, 0)}`,
      ratio: `${fmt(oldRatios[Math.floor(oldRatios.length / 2)] as number)}x (median round ratio)`,
      target: ">= 5x",
    });

  const bare = await startBare();
  const bareRate = await ingest(bare.server.url).finally(() => stop(bare));
  const ours = await startOurs();
  const e2e = await endToEnd(ours).finally(() => stop(ours));
  rows.push({
    metric: `gateway end to end msg/s, accepted → turn done and reply committed (${E2E_MESSAGES} messages on ${E2E_THREADS} threads; ${e2e.other}; ${machineLoad()})`,
    value: fmt(e2e.rate, 0),
    baseline: `bare durable ingest ${fmt(bareRate.rps, 0)}`,
    ratio: `${fmt(e2e.rate / bareRate.rps)}x`,
    target: ">= 0.3x",
  });
  return rows;
}
