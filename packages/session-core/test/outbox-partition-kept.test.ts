// A thread's partition comes from a kept hash for recent threads (outbox-partition.ts): the kept
// answer must be the md5 one whether the thread is in the young generation, the old one, or was
// dropped and hashed again, and what is kept stays bounded with every piece on a new thread.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { keptThreadHashes, outboxPartition } from "../src/outbox-partition.js";

/** The partition as the file header defines it, computed afresh. */
const md5Partition = (gateway: string, thread: string, of: number) =>
  createHash("md5").update(`${gateway}\n${thread}`, "utf8").digest().readUInt32BE(0) % of;

describe("outbox partitions of recent threads", () => {
  it("answers as md5 does for threads kept young, kept old and hashed again, keeping at most 4,096", () => {
    const threads = Array.from({ length: 10_000 }, (_, i) => `t-${i}-é`);
    // Each new thread, then one asked for `back` threads earlier: kept young, old, or dropped.
    const wrong: string[] = [];
    for (const back of [1, 2_047, 2_048, 4_095, 4_096, 9_999]) {
      for (let i = 0; i < threads.length; i++) {
        for (const thread of [threads[i], threads[i - back]]) {
          if (thread === undefined) continue;
          for (const of of [4, 7])
            if (outboxPartition("http", thread, of, true) !== md5Partition("http", thread, of))
              wrong.push(`${thread} of ${of}`);
        }
      }
      expect(keptThreadHashes()).toBeLessThanOrEqual(4_096);
    }
    expect(wrong).toEqual([]);
    expect(keptThreadHashes()).toBeGreaterThanOrEqual(2_048);
  });

  it("keeps the gateway in the key: one thread id of two gateways falls where each one's md5 says", () => {
    const thread = "shared-id";
    expect(outboxPartition("http", thread, 1 << 30, true)).toBe(md5Partition("http", thread, 1 << 30));
    expect(outboxPartition("slack", thread, 1 << 30, true)).toBe(md5Partition("slack", thread, 1 << 30));
    expect(outboxPartition("http", thread, 1 << 30, true)).not.toBe(
      outboxPartition("slack", thread, 1 << 30, true),
    );
  });

  it("puts every thread of a gateway not spread by hash in partition 0", () => {
    expect(outboxPartition("telegram", "t-1", 4, false)).toBe(0);
  });
});
