// Which statements three instances run that one does not (#45.3): pg_stat_statements' calls per
// normalised statement, read before and after a window, compared between two configurations.
import type { PgClient } from "./pg-client.ts";

/** Calls so far per normalised statement text of one database. */
export type Calls = Map<string, number>;

export async function callsOf(stats: PgClient, dbName: string): Promise<Calls> {
  const { rows } = await stats.query(
    `SELECT regexp_replace(left(s.query, 60) || coalesce(' … ' || substring(s.query from '[Ww][Hh][Ee][Rr][Ee] .{0,70}'), ''),
              '\\s+', ' ', 'g') AS q, sum(s.calls)::text AS n, sum(s.rows)::text AS r,
              sum(s.total_exec_time)::text AS ms
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname = $1 AND s.query NOT LIKE '%bench_probe%' GROUP BY 1`,
    [dbName],
  );
  const calls: Calls = new Map(rows.map((r) => [String(r.q), Number(r.n)]));
  // BENCH_DEBUG: every kind's rows and execution ms too (#45.3), listed as kinds of their own: where
  // three instances' extra PostgreSQL time goes, not only their extra calls.
  if (process.env.BENCH_DEBUG)
    for (const r of rows) {
      calls.set(`[rows returned] ${String(r.q)}`, Number(r.r));
      calls.set(`[exec ms] ${String(r.q)}`, Number(r.ms));
    }
  return calls;
}

/** Calls made between two readings, each divided by `per`. */
export function callsBetween(a: Calls, b: Calls, per: number): Calls {
  const out: Calls = new Map();
  for (const [q, n] of b) {
    const d = (n - (a.get(q) ?? 0)) / per;
    if (d > 0) out.set(q, d);
  }
  return out;
}

/** Lines naming the statements whose rate differs most between one and three instances. */
export function breakdown(title: string, one: Calls, three: Calls, top = 12): string[] {
  const keys = new Set([...one.keys(), ...three.keys()]);
  const rows = [...keys]
    .map((q) => ({ q, one: one.get(q) ?? 0, three: three.get(q) ?? 0 }))
    .sort((x, y) => Math.abs(y.three - y.one) - Math.abs(x.three - x.one) || y.three - x.three)
    .slice(0, top);
  return [
    `${title}: 1 instance / 3 instances (largest differences first)`,
    ...rows.map((r) => `  ${r.one.toFixed(2).padStart(8)} ${r.three.toFixed(2).padStart(8)}  ${r.q}`),
  ];
}
