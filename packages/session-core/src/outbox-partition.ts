// Which outbox partition a thread's pieces fall in (several instances, outbox-shares.ts). The
// store's due read computes the same partition in SQL (chat-store outbox-share.ts) and returns
// only the sender's, so the hash is one both compute with built-ins: md5 of `<gateway>\n<thread>`
// as UTF-8, its first 4 bytes as an unsigned big-endian integer, modulo the partition count.
import { createHash } from "node:crypto";
import type { OutboxRow } from "./store.js";

/** A restricted sender's share, as its due reads name it to the store. */
export interface OutboxShare {
  /** How many partitions there are. */
  of: number;
  /** The partitions this sender sends. */
  parts: readonly number[];
  /** Gateways whose threads are spread by hash; every thread of any other gateway is in partition 0. */
  hashed: readonly string[];
}

/** Threads whose hash `threadHash` keeps: the last half this many, at least. */
const HASH_CACHE = 4096;
// Two generations, as pg-cluster's advisoryKeyText keeps its keys: a thread is looked up in the
// young one, then the old one (and moved up); a full young one becomes the old one.
let youngHashes = new Map<string, number>();
let oldHashes = new Map<string, number>();

/**
 * The first 4 bytes of md5(`<gateway>\n<thread>`), kept for recent threads: a restricted sender
 * asks for a piece's partition twice (read, then still its own when its wave goes), an md5 each
 * (0.6% of three instances' app samples in a cluster bench profile, #45.3).
 */
function threadHash(gateway: string, thread: string): number {
  const key = `${gateway}\n${thread}`;
  let hash = youngHashes.get(key);
  if (hash === undefined) {
    hash = oldHashes.get(key) ?? createHash("md5").update(key, "utf8").digest().readUInt32BE(0);
    if (youngHashes.size >= HASH_CACHE / 2) {
      oldHashes = youngHashes;
      youngHashes = new Map();
    }
    youngHashes.set(key, hash);
  }
  return hash;
}

/** Threads `threadHash` keeps now (tests: the bound holds). */
export function keptThreadHashes(): number {
  return youngHashes.size + oldHashes.size;
}

/** The partition of a thread of `of`; a gateway not spread by hash (`hashed` false) is always in 0. */
export function outboxPartition(gateway: string, thread: string, of: number, hashed: boolean): number {
  if (!hashed) return 0;
  return threadHash(gateway, thread) % of;
}

/** True when `row`'s thread is in one of `share`'s partitions. */
export function inShare(share: OutboxShare, row: Pick<OutboxRow, "gateway" | "thread">): boolean {
  const part = outboxPartition(row.gateway, row.thread, share.of, share.hashed.includes(row.gateway));
  return share.parts.includes(part);
}
