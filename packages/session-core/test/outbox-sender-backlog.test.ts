// When the outbox sender reports a backlog (outbox-sender.ts #pump, read by OutboxShares to ask other
// instances for help): once in a pass, at the read that reaches `backlogAfter` pieces, and not
// at all in a pass that sends fewer; every pass reports how many it sent.
import { describe, expect, it } from "vitest";
import { MockGateway } from "../src/testing/index.js";
import { piece, useSender } from "./outbox-harness.js";

const setUp = useSender();

/** `n` pieces, each the head of a thread of its own (one due read returns up to `concurrency`). */
const pieces = (n: number) => Array.from({ length: n }, (_, i) => piece("mock", `t${i}`, `p${i}`));

async function pass(n: number) {
  const gateway = new MockGateway({ name: "mock" });
  const { store, sender } = setUp([gateway], { concurrency: 4, idlePollMs: 600_000 });
  const seen = { backlog: 0, passed: [] as number[] };
  sender.pressure = {
    backlogAfter: 4,
    backlog: () => {
      seen.backlog += 1;
    },
    passed: (sent) => seen.passed.push(sent),
  };
  await store.outbox.enqueue(pieces(n));
  sender.start();
  await sender.settled();
  expect(gateway.sent).toHaveLength(n);
  return seen;
}

describe("the outbox sender's backlog report", () => {
  it("a pass that sends fewer pieces than backlogAfter reports no backlog", async () => {
    expect(await pass(3)).toEqual({ backlog: 0, passed: [3] });
  });

  it("a pass of several batches past backlogAfter reports it once, at the read that reached it", async () => {
    // Reads of 4 and 16 (6 found): the first reaches backlogAfter, the second starts past it.
    expect(await pass(10)).toEqual({ backlog: 1, passed: [10] });
  });

  it("a pass of three reads past backlogAfter still reports it once", async () => {
    // Reads of 4, 16 and 16 (10 found): the second and third start past backlogAfter.
    expect(await pass(30)).toEqual({ backlog: 1, passed: [30] });
  });
});
