// A restricted sender's due read returns only its partitions' heads, PostgreSQL computing each
// thread's partition in the statement (chat-store outbox-share.ts) as this package does in JS
// (outbox-partition.ts): the two must agree on every key, or a thread's pieces would be read by no
// sender or by two. Proven over 2,000 keys (ASCII, accents, CJK, emoji beyond the BMP, long ones)
// and through the real due read of one PostgreSQL store, with and without the role fence.
import { postgresMissing, startPostgres } from "@agentsvc/pg-test";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OutboxShare, outboxPartition } from "../src/outbox-partition.js";
import { postgresStore } from "./pg-locks.js";

const ended: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const end of ended.splice(0).reverse()) await end();
});

const KEYS = 2_000;

/** Thread keys of every kind of character, fixed by the seed; a few ASCII ones to start. */
function threadKeys(): string[] {
  // Any code point but NUL (PostgreSQL's text has none) and lone surrogates (not text in either).
  const codePoint = fc
    .integer({ min: 1, max: 0x10ffff })
    .filter((c) => c < 0xd800 || c > 0xdfff)
    .map((c) => String.fromCodePoint(c));
  const unit = fc.oneof(fc.constantFrom("é", "中", "😀", "\n", "a"), codePoint);
  const odd = fc.sample(fc.string({ unit, minLength: 1, maxLength: 300 }), { numRuns: KEYS - 100, seed: 45 });
  return [...new Set([...Array.from({ length: 100 }, (_, i) => `t-${i}`), ...odd])];
}

describe.skipIf(postgresMissing)("[postgres] a sender's share in the due read", () => {
  let store: Awaited<ReturnType<typeof postgresStore>>;
  const threads = threadKeys();
  beforeAll(async () => {
    const server = await startPostgres();
    ended.push(() => server.stop());
    store = await postgresStore(await server.createDatabase(), 2);
    ended.push(() => store.close());
    // Two gateways spread by hash, and one pinned (every thread of it in partition 0).
    await store.db.outbox.enqueue(
      ["http", "slack-é", "telegram"].flatMap((gateway) =>
        threads.map((thread, i) => ({
          gateway,
          thread,
          idemKey: `${gateway}:${i}`,
          kind: "text" as const,
          payload: { i },
        })),
      ),
    );
  }, 120_000);

  it("returns exactly the heads whose partition, computed in JS, is in the share: every key agrees", async () => {
    const hashed = ["http", "slack-é"];
    const seen = new Map<string, number>();
    for (let part = 0; part < 4; part++) {
      const share: OutboxShare = { of: 4, parts: [part], hashed };
      const rows = await store.db.outbox.due(Date.now(), 100_000, undefined, share);
      for (const row of rows) {
        expect(seen.get(`${row.gateway}\u0000${row.thread}`)).toBeUndefined();
        seen.set(`${row.gateway}\u0000${row.thread}`, part);
      }
    }
    // Every head was read by exactly one share, the one JS names.
    expect(seen.size).toBe(threads.length * 3);
    const mismatched = [...seen].filter(([key, part]) => {
      const [gateway, thread] = key.split("\u0000") as [string, string];
      return outboxPartition(gateway, thread, 4, hashed.includes(gateway)) !== part;
    });
    expect(mismatched).toEqual([]);
    // Spread by hash: each partition holds about a quarter of a hashed gateway's threads.
    for (let part = 0; part < 4; part++) {
      const n = [...seen].filter(([key, p]) => key.startsWith("http\u0000") && p === part).length;
      expect(n).toBeGreaterThan(threads.length / 8);
    }
  });

  it("applies the limit to the share's heads, in head order, and a share of two partitions reads both", async () => {
    const share: OutboxShare = { of: 4, parts: [1, 3], hashed: ["http"] };
    const all = await store.db.outbox.due(Date.now(), 100_000);
    const want = all.filter((row) =>
      [1, 3].includes(outboxPartition(row.gateway, row.thread, 4, row.gateway === "http")),
    );
    const rows = await store.db.outbox.due(Date.now(), 32, undefined, share);
    expect(rows.map((r) => r.id)).toEqual(want.slice(0, 32).map((r) => r.id));
  });
});
