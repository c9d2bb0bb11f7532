// `pnpm bench soak` (not part of `pnpm bench`: ten minutes a run, four runs): 1,000 concurrent
// `/agent/stream` clients kept busy (each finished stream replaced at once), database memory, once
// all in the shared `default` conversation and once one conversation per client. The server's RSS
// is sampled every second; the last third of the run must stay within 1.1x of the middle third
// (nothing grows without bound), and throughput within 1.3x of the same run on window memory.
// BENCH_SOAK_SECONDS (default 600) and BENCH_SOAK_STREAMS (default 1000) shorten it;
// BENCH_CPU_PROF_DIR=<dir> has each server write a CPU profile there (child-server.ts).
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { startChildServer } from "./child-server.ts";
import { cpuSecondsOf, machineLoad, memoryOf } from "./proc.ts";
import { fmt, type Row } from "./stats.ts";

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const STREAMS = Number(process.env.BENCH_SOAK_STREAMS ?? 1000);
const CLIENTS = 2;

interface Soak {
  rssMiddle: number;
  rssLast: number;
  perSecond: number;
  /** Server CPU time per finished stream, in ms. */
  cpuMsPerStream: number;
  errors: number;
  sample: string[];
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

function client(
  url: string,
  count: number,
  mode: string,
): Promise<{ perSecond: number[]; errors: number; sample: string[] }> {
  const child = spawn(
    process.execPath,
    [resolve(import.meta.dirname, "soak-client.ts"), url, String(count), String(SECONDS), mode],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((ok, fail) =>
    child.once("exit", (code) =>
      code === 0 ? ok(JSON.parse(out)) : fail(new Error(`soak client exited ${code}`)),
    ),
  );
}

async function soak(memory: "database" | "window", mode: "shared" | "own"): Promise<Soak> {
  const server = await startChildServer(resolve(import.meta.dirname, "servers/soak-route.ts"), {
    SOAK_MEMORY: memory,
  });
  const rss: number[] = [];
  const timer = setInterval(() => rss.push(memoryOf(server.pid).rssMiB), 1000);
  try {
    const share = Math.ceil(STREAMS / CLIENTS);
    const cpuBefore = cpuSecondsOf(server.pid);
    const parts = await Promise.all(Array.from({ length: CLIENTS }, () => client(server.url, share, mode)));
    const cpu = cpuSecondsOf(server.pid) - cpuBefore;
    const third = Math.floor(rss.length / 3);
    const done = parts.flatMap((p) => p.perSecond).reduce((a, b) => a + b, 0);
    return {
      rssMiddle: mean(rss.slice(third, 2 * third)),
      rssLast: mean(rss.slice(2 * third)),
      perSecond: done / SECONDS,
      cpuMsPerStream: (1000 * cpu) / Math.max(1, done),
      errors: parts.reduce((n, p) => n + p.errors, 0),
      sample: parts.flatMap((p) => p.sample).slice(0, 3),
    };
  } finally {
    clearInterval(timer);
    await server.stop();
  }
}

export async function benchSoak(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const mode of ["shared", "own"] as const) {
    const load = machineLoad();
    const window = await soak("window", mode);
    const database = await soak("database", mode);
    const label = `${STREAMS} streams, ${SECONDS} s, ${mode === "shared" ? "one shared conversation" : "a conversation per client"}; ${load}`;
    const errs = (r: Soak) => `${r.errors}${r.sample.length ? ` (${r.sample.join("; ")})` : ""}`;
    rows.push(
      {
        metric: `RSS, last third vs middle third (database memory, ${label})`,
        value: `${fmt(database.rssLast, 0)} MiB`,
        baseline: `${fmt(database.rssMiddle, 0)} MiB`,
        ratio: `${fmt(database.rssLast / database.rssMiddle)}x`,
        target: "<= 1.1x",
      },
      {
        metric: `streams/s, database vs window memory (${label})`,
        value: fmt(database.perSecond, 1),
        baseline: fmt(window.perSecond, 1),
        ratio: `${fmt(window.perSecond / database.perSecond)}x slower`,
        target: "<= 1.3x",
      },
      {
        // What throughput would be on an idle machine, without the noise of a loaded one: the
        // server's CPU time per finished stream (informational; the target is on throughput).
        metric: `server CPU per stream, database vs window memory (${label})`,
        value: `${fmt(database.cpuMsPerStream)} ms`,
        baseline: `${fmt(window.cpuMsPerStream)} ms`,
        ratio: `${fmt(database.cpuMsPerStream / window.cpuMsPerStream)}x`,
        target: "-",
      },
      {
        metric: `errors, database vs window memory (${label})`,
        value: errs(database),
        baseline: errs(window),
        ratio: "-",
        target: "0",
      },
    );
  }
  return rows;
}
