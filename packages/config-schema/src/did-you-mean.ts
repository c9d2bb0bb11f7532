// No imports: the CLI loads this for an unknown verb or option without loading the schemas.

/** Edit distance (insert, delete, substitute, swap two neighbours) between two short words. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    const prev = d[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** The known word closest to `word` (case-insensitive), when it is close enough to be a typo. */
export function closest(word: string, known: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  // A third of the word (at least 1, at most 3) may be wrong: "instructons", "prot", "strat".
  return bestDistance <= Math.min(3, Math.max(1, Math.floor(word.length / 3))) ? best : undefined;
}

/** `; did you mean "x"?` to append to a message, or "" when nothing is close. */
export function didYouMean(word: string, known: readonly string[]): string {
  const hit = closest(word, known);
  return hit ? `; did you mean "${hit}"?` : "";
}
