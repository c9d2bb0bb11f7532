// Requests made while a lock statement is in flight wait for its answer and then share the next
// statement (lock-batch.ts): one statement at a time per link, however the requests trickle in, so a
// burst of turns costs two round trips, not one each. Written from the survivors of
// `pnpm mutate pg-cluster src/lock-batch.ts` (#44).
import { describe, expect, it } from "vitest";
import { LockBatch } from "../src/lock-batch.js";

describe("lock requests while a statement is in flight", () => {
  it("wait for its answer, then go together in one statement", async () => {
    const statements: string[][] = [];
    const answers: (() => void)[] = [];
    const batch = new LockBatch(
      (_ops, keys) =>
        new Promise((resolve) => {
          statements.push(keys);
          answers.push(() => resolve(new Set(keys)));
        }),
    );
    const first = batch.request("lock", "1");
    await new Promise((r) => setImmediate(r));
    expect(statements).toEqual([["1"]]);
    // Each in a later turn of the event loop, all while the first statement waits for its answer.
    const later: Promise<boolean>[] = [];
    for (const key of ["2", "3", "4"]) {
      later.push(batch.request("lock", key));
      await new Promise((r) => setImmediate(r));
    }
    expect(statements).toEqual([["1"]]);
    answers[0]!();
    expect(await first).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(statements).toEqual([["1"], ["2", "3", "4"]]);
    answers[1]!();
    expect(await Promise.all(later)).toEqual([true, true, true]);
    // Idle again: the next request goes at once, alone.
    const last = batch.request("unlock", "1");
    await new Promise((r) => setImmediate(r));
    expect(statements).toEqual([["1"], ["2", "3", "4"], ["1"]]);
    answers[2]!();
    expect(await last).toBe(true);
  });

  it("a burst of more than 1000 keys goes in statements of at most 1000 (a statement's arrays stay small)", async () => {
    const sizes: number[] = [];
    const batch = new LockBatch(async (_ops, keys) => {
      sizes.push(keys.length);
      return new Set(keys);
    });
    const answers = await Promise.all(
      Array.from({ length: 2001 }, (_, i) => batch.request("lock", String(i))),
    );
    expect(answers.every(Boolean)).toBe(true);
    expect(sizes).toEqual([1000, 1000, 1]);
  });
});
