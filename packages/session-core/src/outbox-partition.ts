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

/** The partition of a thread of `of`; a gateway not spread by hash (`hashed` false) is always in 0. */
export function outboxPartition(gateway: string, thread: string, of: number, hashed: boolean): number {
  if (!hashed) return 0;
  return createHash("md5").update(`${gateway}\n${thread}`, "utf8").digest().readUInt32BE(0) % of;
}

/** True when `row`'s thread is in one of `share`'s partitions. */
export function inShare(share: OutboxShare, row: Pick<OutboxRow, "gateway" | "thread">): boolean {
  const part = outboxPartition(row.gateway, row.thread, share.of, share.hashed.includes(row.gateway));
  return share.parts.includes(part);
}
