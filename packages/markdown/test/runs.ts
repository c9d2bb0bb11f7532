// How many random texts each property tries. CI keeps each property's own count with a fresh seed
// every run; a long local hunt for counterexamples sets MARKDOWN_PROPERTY_RUNS (e.g. 20000) and,
// to replay a failure or vary the hunt, MARKDOWN_PROPERTY_SEED (fast-check prints the seed it used).
const fromEnv = (name: string): number | undefined => {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`${name} must be an integer, got ${raw}`);
  return n;
};

const RUNS = fromEnv("MARKDOWN_PROPERTY_RUNS");
const SEED = fromEnv("MARKDOWN_PROPERTY_SEED");

/** fast-check parameters: `numRuns` unless the environment asks for more (or a seed). */
export function runs(numRuns: number): { numRuns: number; seed?: number } {
  return { numRuns: RUNS ?? numRuns, ...(SEED === undefined ? {} : { seed: SEED }) };
}

/** A property's time limit: `ms` at CI's counts, none for a long hunt (vitest reads 0 as none). */
export const propertyTimeout = (ms: number) => (RUNS === undefined ? ms : 0);
