export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export async function timeEach(count: number, run: (i: number) => Promise<void> | void): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await run(i);
    samples.push(performance.now() - start);
  }
  return samples;
}

export interface Row {
  metric: string;
  value: string;
  baseline: string;
  ratio: string;
  target: string;
}

export function printTable(title: string, rows: Row[]): void {
  const head: Row = {
    metric: "metric",
    value: "agentsvc",
    baseline: "baseline",
    ratio: "ratio",
    target: "target",
  };
  const all = [head, ...rows];
  const width = (k: keyof Row) => Math.max(...all.map((r) => r[k].length));
  const line = (r: Row) =>
    `| ${(Object.keys(head) as (keyof Row)[]).map((k) => r[k].padEnd(width(k))).join(" | ")} |`;
  console.log(`\n## ${title}\n`);
  console.log(line(head));
  console.log(`|${(Object.keys(head) as (keyof Row)[]).map((k) => "-".repeat(width(k) + 2)).join("|")}|`);
  for (const r of rows) console.log(line(r));
}

export const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");
