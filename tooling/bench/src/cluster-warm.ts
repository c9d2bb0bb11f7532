// How cluster-cost.ts warms its instances before the measured burst (#45.3). A process's CPU per
// request falls over its first thousands of requests (V8 tiering its hot functions up, the heap
// growing to its working size): with 2,000 requests over all after 600 each to warm up, the one
// instance was measured from its 600th request to its 2,600th and each of three from its 600th to
// its 1,267th, further up that curve (one instance over five 2,000-request bursts: 1.08, 0.79, 0.90,
// 0.71, 0.68 CPU-s per 1,000), which three paid as if it were a cost of scaling out.
// And the configurations ran one after another, each under the load of its own minutes (the same
// instance 0.4-1.1 CPU-s per 1,000 between idle and loaded spells).
// By default (`steady`) every instance, of one or of three, serves STEADY_WARM requests in rounds
// (each round's CPU per 1,000 is printed: it falls over the first 2,000-3,000, then moves with the
// load only), then every configuration, alive side by side, takes ROUNDS turns of BURST_EACH requests
// per instance: the row is the steady cost per request, and each round's three/one its spread.
// BENCH_CLUSTER_PROTOCOL=issue keeps the protocol: 300 per instance, then 2,000 over all.
import type { ChildServer } from "./child-server.ts";
import { threadSecondsOfAll } from "./cluster-threads.ts";
import { fmt } from "./stats.ts";

export const STEADY = process.env.BENCH_CLUSTER_PROTOCOL !== "issue";
/** Requests per instance to warm up in `steady`, in rounds of WARM_ROUND. */
export const STEADY_WARM = Number(process.env.BENCH_CLUSTER_STEADY_WARM ?? 4000);
const WARM_ROUND = 1000;
/** Requests per instance in each of `steady`'s ROUNDS measured bursts (one instance 1x, three 3x). */
export const BURST_EACH = Number(process.env.BENCH_CLUSTER_BURST_EACH ?? 1000);
export const ROUNDS = Number(process.env.BENCH_CLUSTER_ROUNDS ?? 4);

/** The instances' CPU seconds so far: all threads, and V8's workers (GC helpers, compilers). */
function appSeconds(servers: ChildServer[]): { all: number; v8: number } {
  const threads = threadSecondsOfAll(servers.map((s) => s.pid));
  return { all: [...threads.values()].reduce((sum, s) => sum + s, 0), v8: threads.get("V8Worker") ?? 0 };
}

/** Warms every instance by STEADY_WARM requests, `send(n)` sending n to each at once; prints the curve. */
export async function warmToSteady(
  servers: ChildServer[],
  send: (each: number) => Promise<void>,
  title: string,
): Promise<void> {
  const rounds: string[] = [];
  for (let done = 0; done < STEADY_WARM; done += WARM_ROUND) {
    const a = appSeconds(servers);
    await send(WARM_ROUND);
    const b = appSeconds(servers);
    const perK = (x: number) => fmt((x / (WARM_ROUND * servers.length)) * 1000);
    rounds.push(`${perK(b.all - a.all)} (${perK(b.v8 - a.v8)})`);
  }
  console.log(
    `${title}: warm-up, app CPU-s per 1,000 (V8Worker threads') by round of ${WARM_ROUND} each: ${rounds.join(", ")}`,
  );
}

/**
 * The order of the configurations in measured round `round` (indices 0..n-1): a balanced Latin
 * square (Williams) for an even n, so over n rounds each configuration runs once in each place and
 * follows each other one once. A plain rotation kept who follows whom: with this tree's and
 * BENCH_BEFORE_TREE's one and three (4 configurations) this tree's three ran after a one-instance
 * round in 3 of 4 rounds and the other tree's three after this tree's three, in the wake of its
 * burst (lets-go, GCs): in 3 same-run A/A pairs of the gateway (one tree against a copy of itself)
 * this tree's three cost 1.04x, 1.23x and 1.24x the copy's, and one/three read 1.42x against 1.15x.
 */
export function roundOrder(round: number, n: number): number[] {
  // First row 0, n-1, 1, n-2, 2, ... (successive differences all distinct mod n); row r adds r (mod n).
  const first: number[] = [];
  for (let lo = 0, hi = n - 1, i = 0; first.length < n; i++) first.push(i % 2 === 0 ? lo++ : hi--);
  return first.map((c) => (c + round) % n);
}
