// SQLite: the prompt window of recently used scopes, kept parsed in memory so a turn reads only the
// rows appended since its scope's last read (usually a few) instead of the whole window, and parses
// only those (soak profile: reading and parsing 100 rows was the largest cost durable memory added
// to a turn in a busy shared conversation).
//
// Why it stays right:
// - Appends only add rows with higher ids (AUTOINCREMENT), so "rows after the last cached id"
//   is exactly what changed, whoever in this process appended them.
// - Reads and writes run one at a time on the store's one connection, and a window is saved by
//   the operation that read it: the next operation sees it, in order.
// - Only memory.ts rewrites or deletes rows (clear, summarize); it calls `invalidate` from inside
//   the operation that does.
// - A read may see rows of its batch not yet committed; if that physical transaction is then lost
//   (the store's `losses` count moves before the next operation runs), no window saved before is used.
// - Another process writing the file moves SQLite's `PRAGMA data_version` on this connection:
//   a window saved under another data version is not used.
// - Inside a caller's transaction (which may still roll back) nothing is saved.
// PostgreSQL (several instances on one database) reads the window every turn.
import type { Message } from "@agentsvc/agent-core";
import type { StoreContext } from "./context.js";

/** One stored row of a window, parsed. */
export interface WindowEntry {
  id: number;
  role: string;
  message: Message;
}

export interface CachedWindow {
  /** The window size it was read for (`maxMessages`). */
  limit: number;
  /** `PRAGMA data_version` when it was read. */
  dataVersion: number;
  /** The store's `losses()` when it was read. */
  losses: number;
  /** The scope's first row (a summary when the scope was compacted). */
  head: WindowEntry | undefined;
  /** The last `limit` rows at most, oldest first. */
  rows: WindowEntry[];
  /** The highest id read (0: the scope was empty). */
  lastId: number;
}

/**
 * Scopes kept, least recently used forgotten first: at most this many windows of `maxMessages`
 * parsed messages each (window memory keeps 10,000 by default).
 */
export const MAX_CACHED_SCOPES = 2000;

export class PromptCache {
  readonly #windows = new Map<string, CachedWindow>();

  /** The cached window of `key` when it was read for `limit`, and nothing may have changed it since. */
  usable(key: string, limit: number, dataVersion: number, losses: number): CachedWindow | undefined {
    const window = this.#windows.get(key);
    return window && window.limit === limit && window.dataVersion === dataVersion && window.losses === losses
      ? window
      : undefined;
  }

  /** Keeps `window` as the scope's most recently used (called by the operation that read it). */
  save(key: string, window: CachedWindow): void {
    this.#windows.delete(key);
    this.#windows.set(key, window);
    if (this.#windows.size > MAX_CACHED_SCOPES)
      this.#windows.delete(this.#windows.keys().next().value as string);
  }

  /** The scope's rows were changed or deleted: forget its window. */
  invalidate(key: string): void {
    this.#windows.delete(key);
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
