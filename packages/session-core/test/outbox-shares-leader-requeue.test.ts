// The partitions a leader gave up under a backlog (outbox-shares.ts #share), on the in-process
// cluster: the leader is back in line for them at once, so one a helper takes and gives back (a
// partition beyond its share, a try won as it left the line) is sent by the leader as the release
// comes, not when the leader queued again 2 s later (#45.3: a partition without a sender meanwhile,
// the replies' commit -> send p99 on three instances). One nobody took is tried 2 s after.
import { describe, expect, it, vi } from "vitest";
import { createMemoryCluster } from "../src/testing/index.js";
import { fakeClockEachTest, fakeSender, sharesOver } from "./outbox-shares-fixture.js";

fakeClockEachTest();

describe("a partition a helper gives back just after the leader shared its backlog", () => {
  it("is the leader's again at once; one nobody took is the leader's 2 s after it was given up", async () => {
    const cluster = createMemoryCluster();
    const { sender, restrictions } = fakeSender();
    const shares = sharesOver(cluster.instance("leader"), sender);
    shares.lead();
    expect(cluster.leaderOf("outbox:3")).toBe("leader");
    // Another instance in line for partition 3 only (the rest free once given up).
    const stop3 = cluster.instance("helper").lead("outbox:3", { onLead: () => {}, onLose: () => {} });
    sender.pressure?.backlog();
    shares.helping();
    await vi.advanceTimersByTimeAsync(250);
    expect(cluster.leaderOf("outbox:3")).toBe("helper");
    expect(cluster.leaderOf("outbox:1")).toBeUndefined();
    // The helper gives it back (more than its share): the leader has it before any timer runs.
    await stop3();
    expect(cluster.leaderOf("outbox:3")).toBe("leader");
    const share = restrictions.at(-1)?.share?.();
    expect([...(share?.parts ?? [])].sort()).toEqual([0, 3]);
    // Partitions 1 and 2, free since they were given up (at the line-up's end, 200 ms), are
    // tried 2 s after.
    await vi.advanceTimersByTimeAsync(1_900);
    expect(cluster.leaderOf("outbox:1")).toBeUndefined();
    await vi.advanceTimersByTimeAsync(100);
    expect(cluster.leaderOf("outbox:1")).toBe("leader");
    expect(cluster.leaderOf("outbox:2")).toBe("leader");
    // Holding all four again, it sends everything unrestricted.
    expect(restrictions.at(-1)?.mine).toBeUndefined();
    await shares.stop();
  });
});
