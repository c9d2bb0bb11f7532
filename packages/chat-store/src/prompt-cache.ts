// SQLite: the prompt window of recently used scopes, kept parsed in memory. A turn's append adds
// its rows to its scope's window (`extend`), so the next turn reads no row at all (soak profile:
// reading and parsing 100 rows was the largest cost durable memory added to a turn in a busy
// shared conversation; then the query for the rows appended since the last read).
//
// Why it stays right:
// - Only memory.ts writes memory rows, and always from inside the operation that writes them: an
//   append outside a caller's transaction extends the scope's window with exactly the rows it
//   inserted (AUTOINCREMENT: higher ids than any before); one inside a caller's transaction (which
//   may still roll back), clear and summarize `invalidate` it. So a cached window holds every row
//   of its scope this process wrote.
// - Reads and writes run one at a time on the store's one connection, and a window is saved by
//   the operation that read or extended it: the next operation sees it, in order.
// - A window may hold rows of its batch not yet committed; if they are then undone (a lost
//   physical transaction, or the append's own transaction rolled back: the store's `losses` count
//   moves before the next operation runs), no window saved or extended before is used.
// - Another process writing the file moves SQLite's `PRAGMA data_version` on this connection:
//   a window saved under another data version is not used.
// - Inside a caller's transaction (which may still roll back) nothing is saved.
// PostgreSQL (several instances on one database) reads the window every turn.
import type { Message } from "@agentsvc/agent-core";
import type { StoreContext } from "./context.js";
import type { WindowRow } from "./window-batch.js";

/** One stored row of a window, parsed. */
export interface WindowEntry {
  id: number;
  role: string;
  message: Message;
  /** Length of the stored JSON: the row's size in the cache's byte count, and 4x its estimated tokens. */
  size: number;
}

export interface CachedWindow {
  /** The window size it was read for (`maxMessages`). */
  limit: number;
  /** The token budget it was cut to (`maxPromptTokens`; undefined: none). */
  budget: number | undefined;
  /** `PRAGMA data_version` when it was read. */
  dataVersion: number;
  /** The store's `losses()` when it was read. */
  losses: number;
  /** The scope's first row (a summary when the scope was compacted). */
  head: WindowEntry | undefined;
  /** The last `limit` rows at most, oldest first, cut to `budget` (`withinBudget`). */
  rows: WindowEntry[];
  /** The highest id read (0: the scope was empty). */
  lastId: number;
}

/** A stored row as a window keeps it. */
export function parsed(row: WindowRow): WindowEntry {
  return { id: row.id, role: row.role, message: JSON.parse(row.body) as Message, size: row.body.length };
}

/**
 * Scopes kept, least recently used forgotten first: at most this many windows (window memory keeps
 * 10,000 conversations by default), and at most `MAX_CACHED_BYTES` in all.
 */
export const MAX_CACHED_SCOPES = 2000;
/**
 * The cached windows' rows in all, counted by their stored JSON length (a parsed row takes about as
 * much: its text, plus a little for the objects). Past it the least recently used go first; a
 * window over an eighth of it (8 MiB) is not kept (its turns read it from the database each time).
 */
export const MAX_CACHED_BYTES = 64 * 1024 * 1024;

/**
 * The rows a prompt of `budget` estimated tokens can carry, cut from the front as `promptWindow`
 * cuts them (whole rows, the newest kept even over the budget), before the summary is counted: a
 * superset of the prompt's window, now and after more rows are appended (each only pushes older
 * rows out), so the cache never holds what no prompt will carry.
 */
export function withinBudget(rows: WindowEntry[], budget: number | undefined): WindowEntry[] {
  if (budget === undefined) return rows;
  let used = 0;
  let start = rows.length;
  while (start > 0) {
    const cost = Math.ceil((rows[start - 1] as WindowEntry).size / 4);
    if (used + cost > budget && start < rows.length) break;
    used += cost;
    start--;
  }
  return start === 0 ? rows : rows.slice(start);
}

function sizeOf(window: CachedWindow): number {
  let size = 0;
  for (const row of window.rows) size += row.size;
  // The head is usually a row of its own (a summary, or the scope's first message).
  if (window.head && window.rows[0]?.id !== window.head.id) size += window.head.size;
  return size;
}

export class PromptCache {
  readonly #windows = new Map<string, { window: CachedWindow; size: number }>();
  #bytes = 0;
  readonly #maxScopes: number;
  readonly #maxBytes: number;

  constructor(limits: { maxScopes?: number; maxBytes?: number } = {}) {
    this.#maxScopes = limits.maxScopes ?? MAX_CACHED_SCOPES;
    this.#maxBytes = limits.maxBytes ?? MAX_CACHED_BYTES;
  }

  /**
   * The cached window of `key` when it was read for `limit` and `budget`, and nothing may have
   * changed it since; it is the most recently used from now on.
   */
  usable(
    key: string,
    limit: number,
    budget: number | undefined,
    dataVersion: number,
    losses: number,
  ): CachedWindow | undefined {
    const kept = this.#windows.get(key);
    if (!kept) return undefined;
    const window = kept.window;
    if (
      window.limit !== limit ||
      window.budget !== budget ||
      window.dataVersion !== dataVersion ||
      window.losses !== losses
    )
      return undefined;
    // The most recently used now (Map keeps insertion order).
    this.#windows.delete(key);
    this.#windows.set(key, kept);
    return window;
  }

  /**
   * Rows just appended to the scope, ids ascending (above the window's: AUTOINCREMENT), called by
   * the operation that inserted them: its window takes them as a read would, cut to its own limit
   * and budget. No window, nothing to do: the next read reads one.
   */
  extend(key: string, appended: WindowRow[], losses: number): void {
    const window = this.#windows.get(key)?.window;
    const last = appended.at(-1);
    if (!window || !last) return;
    // Already unusable (rows it held were undone): dropped, not extended.
    if (window.losses !== losses) {
      this.invalidate(key);
      return;
    }
    const added = appended.map(parsed);
    const rows = withinBudget([...window.rows, ...added].slice(-window.limit), window.budget);
    // An empty scope's first row is its head.
    this.save(key, { ...window, head: window.head ?? added[0], rows, lastId: last.id });
  }

  /** Keeps `window` as the scope's most recently used (called by the operation that read it). */
  save(key: string, window: CachedWindow): void {
    this.invalidate(key);
    const size = sizeOf(window);
    if (size > this.#maxBytes / 8) return;
    this.#windows.set(key, { window, size });
    this.#bytes += size;
    while (this.#windows.size > this.#maxScopes || this.#bytes > this.#maxBytes)
      this.invalidate(this.#windows.keys().next().value as string);
  }

  /** The scope's rows were changed or deleted: forget its window. */
  invalidate(key: string): void {
    const kept = this.#windows.get(key);
    if (!kept) return;
    this.#windows.delete(key);
    this.#bytes -= kept.size;
  }

  /** Windows and their bytes kept now (for tests and the bounds section of the README). */
  get held(): { windows: number; bytes: number } {
    return { windows: this.#windows.size, bytes: this.#bytes };
  }
}

/** One cache per store connection, shared by every memory created on it. */
const caches = new WeakMap<StoreContext, PromptCache>();

export function promptCacheOf(ctx: StoreContext): PromptCache {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new PromptCache();
    caches.set(ctx, cache);
  }
  return cache;
}
