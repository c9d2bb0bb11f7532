// A restricted sender's read of the next due time (outbox-share.ts, #45.3): only the heads of its
// partitions count, as in its due read, so another instance's piece coming due does not wake it.
// Partitions as session-core computes them (md5 of `<gateway>\n<thread>`); a gateway not spread by
// hash has every thread in partition 0.
import { createHash } from "node:crypto";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { OutboxShare } from "../src/outbox-share.js";
import { clock, postgresDriver } from "./helpers.js";

const partOf = (gateway: string, thread: string) =>
  createHash("md5").update(`${gateway}\n${thread}`, "utf8").digest().readUInt32BE(0) % 4;

const piece = (gateway: string, thread: string, notBefore: number) => ({
  gateway,
  thread,
  idemKey: `${gateway}:${thread}`,
  kind: "text" as const,
  payload: { text: thread },
  notBefore,
});

describe.skipIf(postgresMissing)("[postgres] the next due time of a sender's share", () => {
  it("is the earliest head of its partitions only; none when its partitions hold no pending piece", async () => {
    const t = clock();
    const db = await postgresDriver.open({ now: t.now });
    const share = (parts: number[]): OutboxShare => ({ of: 4, parts, hashed: ["g"] });
    expect([partOf("g", "a"), partOf("g", "b"), partOf("pinned", "d")]).toEqual([0, 3, 3]);
    // b (partition 3) first, then the pinned gateway's thread (partition 0: not spread), then a (0).
    await db.outbox.enqueue([
      piece("g", "a", t.now() + 5_000),
      piece("g", "b", t.now() + 1_000),
      piece("pinned", "d", t.now() + 3_000),
    ]);
    expect(await db.outbox.nextDueAt()).toBe(t.now() + 1_000);
    expect(await db.outbox.nextDueAt(share([3]))).toBe(t.now() + 1_000);
    expect(await db.outbox.nextDueAt(share([0]))).toBe(t.now() + 3_000);
    expect(await db.outbox.nextDueAt(share([1, 2]))).toBeUndefined();
    expect(await db.outbox.nextDueAt(share([2, 0]))).toBe(t.now() + 3_000);
    // The pinned gateway spread by hash too: d leaves partition 0 for its own, 3.
    const spread = (parts: number[]): OutboxShare => ({ of: 4, parts, hashed: ["g", "pinned"] });
    expect(await db.outbox.nextDueAt(spread([0]))).toBe(t.now() + 5_000);
    expect(await db.outbox.nextDueAt(spread([3]))).toBe(t.now() + 1_000);
    await db.outbox.drop((await db.outbox.list("g", "b"))[0]!.id);
    expect(await db.outbox.nextDueAt(spread([3]))).toBe(t.now() + 3_000);
  });
});
