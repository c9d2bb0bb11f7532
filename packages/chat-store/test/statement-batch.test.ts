// The grouping both PostgreSQL batches (inbox accepts, outbox sent marks) share, against a
// statement the test controls: which items go together, in which order, and who gets which error.
import { describe, expect, it } from "vitest";
import { StatementBatch } from "../src/statement-batch.js";

interface Call {
  items: number[];
  finish(): void;
}

/** A statement per call that answers each item doubled once the test finishes it; odd items fail when `oddFails`. */
function controlled(maxItems: number, options: { oddFails?: boolean; wrongCount?: boolean } = {}) {
  const calls: Call[] = [];
  let inFlight = 0;
  let overlapped = false;
  const batch = new StatementBatch<number, number>(async (items) => {
    inFlight++;
    if (inFlight > 1) overlapped = true;
    await new Promise<void>((finish) => calls.push({ items, finish }));
    inFlight--;
    if (options.oddFails && items.some((i) => i % 2 === 1)) throw new Error(`refused ${items.join(",")}`);
    return options.wrongCount ? items.slice(1) : items.map((i) => i * 2);
  }, maxItems);
  return { batch, calls, overlapped: () => overlapped };
}

/** Lets queued microtasks and promise callbacks run. */
const settle = () => new Promise<void>((r) => setImmediate(r));

/** Finishes every statement, including those started by finishing others, until none is left. */
async function finishAll(calls: Call[]): Promise<void> {
  for (let done = 0; ; done++) {
    await settle();
    if (done >= calls.length) return;
    calls[done]!.finish();
  }
}

describe("StatementBatch", () => {
  it("items added in one tick share one statement, in arrival order, each caller getting its own result", async () => {
    const { batch, calls } = controlled(10);
    const answers = Promise.all([1, 2, 3].map((i) => batch.add(i)));
    await finishAll(calls);
    expect(await answers).toEqual([2, 4, 6]);
    expect(calls.map((c) => c.items)).toEqual([[1, 2, 3]]);
  });

  it("items added while a statement is in flight wait for it, then go together in the next one; statements never overlap", async () => {
    const { batch, calls, overlapped } = controlled(10);
    const first = batch.add(1);
    await settle();
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    const later = [2, 3, 4].map((i) => batch.add(i));
    await settle();
    expect(calls).toHaveLength(1); // 2, 3 and 4 wait for the statement holding 1
    await finishAll(calls);
    expect(await first).toBe(2);
    expect(await Promise.all(later)).toEqual([4, 6, 8]);
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    expect(overlapped()).toBe(false);
  });

  it("a caller is answered only when the statement holding its item has finished", async () => {
    const { batch, calls } = controlled(10);
    let answered = false;
    const answer = batch.add(5).then((r) => {
      answered = true;
      return r;
    });
    await settle();
    expect(answered).toBe(false);
    calls[0]!.finish();
    expect(await answer).toBe(10);
  });

  it("a burst larger than the cap goes in statements of at most the cap, oldest first", async () => {
    const { batch, calls } = controlled(3);
    const answers = Promise.all([1, 2, 3, 4, 5, 6, 7].map((i) => batch.add(i)));
    await finishAll(calls);
    expect(await answers).toEqual([2, 4, 6, 8, 10, 12, 14]);
    expect(calls.map((c) => c.items)).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });

  it("a statement refused for several items is run for each alone: only the failing item's caller is rejected, with its own statement's error", async () => {
    const { batch, calls } = controlled(10, { oddFails: true });
    const results = Promise.allSettled([2, 3, 4].map((i) => batch.add(i)));
    await finishAll(calls);
    const settled = await results;
    expect(settled.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((settled[0] as PromiseFulfilledResult<number>).value).toBe(4);
    expect((settled[2] as PromiseFulfilledResult<number>).value).toBe(8);
    expect((settled[1] as PromiseRejectedResult).reason).toEqual(new Error("refused 3"));
    expect(calls.map((c) => c.items)).toEqual([[2, 3, 4], [2], [3], [4]]);
  });

  it("after a failed statement the items that waited meanwhile still go", async () => {
    const { batch, calls } = controlled(10, { oddFails: true });
    const failed = batch.add(1).catch((error: unknown) => error);
    await settle();
    const waited = [2, 4].map((i) => batch.add(i));
    await finishAll(calls);
    expect(await failed).toEqual(new Error("refused 1"));
    expect(await Promise.all(waited)).toEqual([4, 8]);
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 4]]);
  });

  it("a statement answering a wrong number of results rejects its callers without running it again", async () => {
    const { batch, calls } = controlled(10, { wrongCount: true });
    const results = Promise.allSettled([1, 2].map((i) => batch.add(i)));
    await finishAll(calls);
    const settled = await results;
    expect(settled.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect((settled[0] as PromiseRejectedResult).reason).toEqual(
      new Error("statement batch: 1 results for 2 items"),
    );
    expect(calls).toHaveLength(1);
  });
});
