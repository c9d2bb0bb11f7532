// The data of a project's YAML files as `start` last parsed them (#45): a restart reads one JSON
// file (~0.1 ms) instead of loading the yaml package and parsing each file with it (~10 ms of CPU
// for examples/hello's three gateway files, most of it compiling yaml's functions at first use).
// An entry is the file's whole text and its data, so any edit misses; only a clean parse whose data
// survives JSON unchanged is kept (not `.inf`, say). Kept in `.agentsvc/` beside service.json.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const FILE = join(".agentsvc", "yaml-cache.json");
/**
 * What the kept data was parsed by: bump it when loadDataFile's parse options or its theme rule
 * change, or the yaml package's major version, so a restart after an upgrade parses again. js-yaml
 * reading a file instead (yaml-data.ts) needs no bump: the data is the same.
 */
export const YAML_CACHE_FORMAT = "yaml@2;theme-text@1";

interface Entry {
  text: string;
  value: unknown;
}

export interface YamlCache {
  /** The data kept for `rel` when its text is `text` now, or undefined. */
  get(rel: string, text: string): { value: unknown } | undefined;
  /** Keeps the data parsed from `text`, when JSON carries it unchanged. */
  set(rel: string, text: string, value: unknown): void;
  /** Writes the entries of the files read this time, if any changed; a failed write is ignored. */
  save(): void;
}

export function openYamlCache(root: string): YamlCache {
  let kept: Record<string, Entry> = {};
  try {
    const read = JSON.parse(readFileSync(join(root, FILE), "utf8")) as { format?: unknown; files?: unknown };
    if (read?.format === YAML_CACHE_FORMAT && read.files && typeof read.files === "object")
      kept = read.files as Record<string, Entry>;
  } catch {
    // No cache yet, or an unreadable one: every file is parsed.
  }
  const used: Record<string, Entry> = {};
  let changed = false;
  return {
    get(rel, text) {
      const entry = kept[rel];
      if (entry?.text !== text) return undefined;
      used[rel] = entry;
      return { value: entry.value };
    },
    set(rel, text, value) {
      changed = true;
      // Parsed again from JSON: the caller keeps its own object; what does not survive JSON is not kept.
      if (survivesJson(value)) used[rel] = { text, value: JSON.parse(JSON.stringify(value)) };
    },
    save() {
      if (!changed && Object.keys(used).length === Object.keys(kept).length) return;
      try {
        mkdirSync(join(root, ".agentsvc"), { recursive: true });
        // Renamed into place: a start reading it meanwhile sees the old file or the new one.
        const tmp = `${join(root, FILE)}.${process.pid}`;
        writeFileSync(tmp, JSON.stringify({ format: YAML_CACHE_FORMAT, files: used }));
        renameSync(tmp, join(root, FILE));
      } catch {
        // A read-only project folder: the next start parses again.
      }
    },
  };
}

/**
 * Whether JSON gives `value` back deep-equal (isDeepStrictEqual's answer after a round trip, without
 * loading node:util's comparisons on a start, #45): plain objects and arrays of strings, booleans,
 * null and finite numbers other than -0.
 */
export function survivesJson(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  // A hole is null after JSON (every() would skip it).
  if (Array.isArray(value)) return Array.from(value, survivesJson).every(Boolean);
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return false;
  // Enumerable own properties are what both JSON and isDeepStrictEqual look at.
  if (Object.getOwnPropertySymbols(value).some((k) => Object.prototype.propertyIsEnumerable.call(value, k)))
    return false;
  return Object.keys(value).every((key) => survivesJson((value as Record<string, unknown>)[key]));
}
