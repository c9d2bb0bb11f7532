// `pnpm bench ingest-e2e`: the end-to-end row of `pnpm bench ingest` (2,000 signed messages on 200
// threads, accepted -> turn done and reply committed) in alternated rounds against the bare durable
// handler's ingest rate, so a lever can be measured as a before/after pair in one run:
// BENCH_BEFORE_TREE=<a built tree of an older commit> runs that tree's server in the same rounds.
// BENCH_ROUNDS (default 5) sets the rounds; the median round of each side is reported, with the
// server's CPU time per message (/proc: every thread, so a checkpoint thread counts too), which a
// loaded machine's waiting does not inflate as it does msg/s.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { E2E_MESSAGES, E2E_THREADS, endToEnd, ingest, startBare, startOurs, stop } from "./ingest.ts";
import { cpuSecondsOf, machineLoad } from "./proc.ts";
import { fmt, type Row } from "./stats.ts";

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));

/**
 * SQLite statements per message on one side, in a run of its own (the counter costs CPU): the
 * server preloads servers/sqlite-statements.ts, which counts from the SIGUSR2 sent once it is up.
 * Returns the total per message and the most frequent statements (per message, by text).
 */
async function statementsPerMessage(tree?: string): Promise<{ total: number; top: [string, number][] }> {
  const counter = join(
    tree ? join(tree, "tooling/bench") : resolve(import.meta.dirname, ".."),
    "src/servers/sqlite-statements.ts",
  );
  if (tree) copyFileSync(resolve(import.meta.dirname, "servers/sqlite-statements.ts"), counter);
  const dir = mkdtempSync(join(tmpdir(), "agentsvc-bench-statements-"));
  const file = join(dir, "counts.json");
  const saved = { options: process.env.NODE_OPTIONS, file: process.env.BENCH_SQLITE_COUNT_FILE };
  process.env.NODE_OPTIONS = `${saved.options ?? ""} --import=${counter}`.trim();
  process.env.BENCH_SQLITE_COUNT_FILE = file;
  const side = await startOurs(tree).finally(() => {
    if (saved.options === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = saved.options;
    if (saved.file === undefined) delete process.env.BENCH_SQLITE_COUNT_FILE;
    else process.env.BENCH_SQLITE_COUNT_FILE = saved.file;
  });
  process.kill(side.server.pid, "SIGUSR2");
  await endToEnd(side).finally(() => stop(side));
  let counts: [string, number][];
  try {
    counts = Object.entries(JSON.parse(readFileSync(file, "utf8")) as Record<string, number>);
  } catch (error) {
    // Seen once (not reproduced): the rate and CPU rows are still worth printing without it.
    console.error(`${tree ?? "this tree"}: no statement counts (${String(error)})`);
    return { total: Number.NaN, top: [] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const total = counts.reduce((sum, [, n]) => sum + n, 0) / E2E_MESSAGES;
  const top = counts
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15)
    .map(([sql, n]): [string, number] => [sql.replace(/\s+/g, " ").slice(0, 160), n / E2E_MESSAGES]);
  return { total, top };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export async function benchIngestEndToEnd(): Promise<Row[]> {
  const before = process.env.BENCH_BEFORE_TREE;
  const loads = [machineLoad()];
  const rounds: { bare: number; ours: number; old?: number; oursCpu: number; oldCpu?: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const bare = await startBare();
    const bareRate = (await ingest(bare.server.url).finally(() => stop(bare))).rps;
    // Alternate which of ours and before goes first, so a load change does not favour one side.
    const order = before ? (i % 2 === 0 ? [undefined, before] : [before, undefined]) : [undefined];
    const round: (typeof rounds)[number] = { bare: bareRate, ours: 0, oursCpu: 0 };
    for (const tree of order) {
      const side = await startOurs(tree);
      let cpuMs = 0;
      const e2e = await (async () => {
        const cpu = cpuSecondsOf(side.server.pid);
        const result = await endToEnd(side);
        cpuMs = (1000 * (cpuSecondsOf(side.server.pid) - cpu)) / E2E_MESSAGES;
        return result;
      })().finally(() => stop(side));
      if (e2e.done < E2E_MESSAGES) throw new Error(`${tree ?? "this tree"}: ${e2e.other}`);
      if (tree) {
        round.old = e2e.rate;
        round.oldCpu = cpuMs;
      } else {
        round.ours = e2e.rate;
        round.oursCpu = cpuMs;
      }
    }
    rounds.push(round);
    loads.push(machineLoad());
    if (process.env.BENCH_DEBUG)
      console.error(
        `e2e round ${i + 1}: bare ${fmt(round.bare, 0)} req/s, agentsvc ${fmt(round.ours, 0)}${round.old !== undefined ? `, before ${fmt(round.old, 0)}` : ""} msg/s; server CPU ms/msg ${fmt(round.oursCpu, 2)}${round.oldCpu !== undefined ? ` vs before ${fmt(round.oldCpu, 2)}` : ""} (${machineLoad()})`,
      );
  }
  const ratios = rounds.map((r) => r.ours / r.bare);
  const rows: Row[] = [
    {
      metric: `gateway end to end msg/s, accepted → turn done and reply committed (${E2E_MESSAGES} messages on ${E2E_THREADS} threads; median of ${ROUNDS} rounds, per round ${ratios.map((r) => fmt(r)).join(", ")}; ${loads.join(" → ")})`,
      value: fmt(median(rounds.map((r) => r.ours)), 0),
      baseline: `bare durable ingest ${fmt(median(rounds.map((r) => r.bare)), 0)}`,
      ratio: `${fmt(median(ratios))}x`,
      target: ">= 0.3x",
    },
  ];
  rows.push({
    metric: "server CPU ms per message end to end (all threads, /proc; median round)",
    value: fmt(median(rounds.map((r) => r.oursCpu)), 2),
    baseline: before ? `before ${fmt(median(rounds.map((r) => r.oldCpu as number)), 2)}` : "-",
    ratio: before
      ? `${fmt(median(rounds.map((r) => r.oursCpu / (r.oldCpu as number))))}x (median round ratio)`
      : "-",
    target: "-",
  });
  const counted = await statementsPerMessage();
  const countedBefore = before ? await statementsPerMessage(before) : undefined;
  if (process.env.BENCH_DEBUG)
    for (const [sql, n] of counted.top) console.error(`statements/msg ${n.toFixed(2)}  ${sql}`);
  rows.push({
    metric:
      "SQLite statements per message end to end (run/get/all/iterate and exec, counted in a round of its own)",
    value: fmt(counted.total, 1),
    baseline: countedBefore ? `before ${fmt(countedBefore.total, 1)}` : "-",
    ratio: countedBefore ? `${fmt(counted.total / countedBefore.total)}x` : "-",
    target: "-",
  });
  if (before) {
    const oldRatios = rounds.map((r) => (r.old as number) / r.bare);
    rows.push({
      metric: `the same at ${before} (same rounds; per round ${oldRatios.map((r) => fmt(r)).join(", ")}; ours/before ${rounds.map((r) => fmt(r.ours / (r.old as number))).join(", ")})`,
      value: fmt(median(rounds.map((r) => r.old as number)), 0),
      baseline: `bare durable ingest ${fmt(median(rounds.map((r) => r.bare)), 0)}`,
      ratio: `${fmt(median(oldRatios))}x (ours/before ${fmt(median(rounds.map((r) => r.ours / (r.old as number))))}x)`,
      target: "-",
    });
  }
  return rows;
}
