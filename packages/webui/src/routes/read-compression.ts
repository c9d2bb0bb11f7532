import { compress } from "hono/compress";

/**
 * The page's large reads (a long conversation's `/history` is ~130 KB of JSON for 1,000 messages)
 * go out gzip-compressed when the client accepts it: a few KB instead over a phone's link. Only
 * these reads: they carry no secret beside what a visitor typed, so compression reveals nothing
 * (the BREACH concern), and streams are never buffered by it.
 */
export const compressRead = compress({ encoding: "gzip" });
