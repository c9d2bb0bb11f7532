/**
 * How long the session keeps a finished inbox record (its dedup key) by default: a platform
 * redelivering within it is deduplicated. Adapters that refuse older deliveries (GitHub) read it.
 */
export const DEFAULT_DEDUP_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
