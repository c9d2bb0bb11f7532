// "Stop means stop" (README): the run is cancelled once the LAST client following it has been gone
// for the whole grace period; a client reattaching within it keeps the run, a stream written to its
// end or a run that no longer runs is never cancelled. Timers are vitest's fake ones: the grace
// period is counted, not waited for.
import type { RunHandle, RunManagerApi, RunStatus } from "@agentsvc/agent-core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { disconnectCancel } from "../src/disconnect-cancel.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A RunManagerApi that records cancels (the only call disconnectCancel makes). */
function recordingRuns() {
  const cancels: unknown[][] = [];
  const runs = {
    cancel: (...args: unknown[]) => {
      cancels.push(args);
      return true;
    },
  } as unknown as RunManagerApi;
  return { runs, cancels };
}

function run(threadId = "a.x/t1", userId = "ann"): RunHandle & { status: RunStatus } {
  return {
    threadId,
    options: { threadId, userId, conversationId: "c" },
    status: "running",
    done: new Promise(() => {}),
    events: async function* () {},
  };
}

const GRACE = 3000;

describe("cancel on hang-up", () => {
  it("cancels a running run, as its owner, once its only client has been gone for the grace period", () => {
    const { runs, cancels } = recordingRuns();
    const handle = run();
    const leave = disconnectCancel(runs, GRACE).follow(handle);
    leave(true);
    vi.advanceTimersByTime(GRACE - 1);
    expect(cancels).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(cancels).toEqual([["a.x/t1", { userId: "ann" }, "the client hung up"]]);
  });

  it("keeps the run while another client still follows it, and cancels when the last one leaves", () => {
    const { runs, cancels } = recordingRuns();
    const handle = run();
    const hangUps = disconnectCancel(runs, GRACE);
    const first = hangUps.follow(handle);
    const second = hangUps.follow(handle);
    first(true);
    vi.advanceTimersByTime(GRACE * 10);
    expect(cancels).toEqual([]);
    second(true);
    vi.advanceTimersByTime(GRACE);
    expect(cancels).toHaveLength(1);
  });

  it("keeps a run whose client reattached within the grace period, and waits the whole period again when it leaves again", () => {
    const { runs, cancels } = recordingRuns();
    const handle = run();
    const hangUps = disconnectCancel(runs, GRACE);
    hangUps.follow(handle)(true);
    vi.advanceTimersByTime(GRACE - 1);
    const again = hangUps.follow(handle);
    vi.advanceTimersByTime(GRACE * 10);
    expect(cancels).toEqual([]);
    again(true);
    vi.advanceTimersByTime(GRACE - 1);
    expect(cancels).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(cancels).toHaveLength(1);
  });

  it("counts the followers of each run apart: another thread's client does not keep this one", () => {
    const { runs, cancels } = recordingRuns();
    const hangUps = disconnectCancel(runs, GRACE);
    hangUps.follow(run("a.x/other"));
    hangUps.follow(run("a.x/t1"))(true);
    vi.advanceTimersByTime(GRACE);
    expect(cancels.map((c) => c[0])).toEqual(["a.x/t1"]);
  });

  it("cancels nothing after a stream written to its end, nor a run that no longer runs", () => {
    const { runs, cancels } = recordingRuns();
    const hangUps = disconnectCancel(runs, GRACE);
    hangUps.follow(run("a.x/ended"))(false);
    const suspended = run("a.x/waiting");
    suspended.status = "suspended";
    hangUps.follow(suspended)(true);
    // Suspended (an approval) during the grace period: left waiting for its decision.
    const later = run("a.x/later");
    hangUps.follow(later)(true);
    later.status = "suspended";
    vi.advanceTimersByTime(GRACE * 10);
    expect(cancels).toEqual([]);
  });

  it("a run ended normally and then followed again (a reconnect within the 60 s replay) is cancelled by nobody", () => {
    const { runs, cancels } = recordingRuns();
    const hangUps = disconnectCancel(runs, GRACE);
    const handle = run();
    hangUps.follow(handle)(false);
    handle.status = "completed";
    hangUps.follow(handle)(true);
    vi.advanceTimersByTime(GRACE * 10);
    expect(cancels).toEqual([]);
  });

  it("leaves a run that was waiting for an approval when its client hung up, even if it runs again within the grace period", () => {
    const { runs, cancels } = recordingRuns();
    const handle = run();
    handle.status = "suspended";
    disconnectCancel(runs, GRACE).follow(handle)(true);
    // The decision came from elsewhere (a gateway, the chat page): the run goes on without a client.
    handle.status = "running";
    vi.advanceTimersByTime(GRACE * 10);
    expect(cancels).toEqual([]);
  });

  it("keeps no run once its streams ended or its grace period passed", () => {
    const { runs } = recordingRuns();
    const hangUps = disconnectCancel(runs, GRACE);
    const leaves = [hangUps.follow(run("a.x/ended")), hangUps.follow(run("a.x/gone"))];
    expect(hangUps.size).toBe(2);
    leaves[0]?.(false);
    expect(hangUps.size).toBe(1);
    leaves[1]?.(true);
    vi.advanceTimersByTime(GRACE - 1);
    expect(hangUps.size).toBe(1);
    vi.advanceTimersByTime(1);
    expect(hangUps.size).toBe(0);
  });

  it("runs where a timer is a number without unref (browsers, Deno): the cancel still comes", () => {
    const { runs, cancels } = recordingRuns();
    const timers: (() => void)[] = [];
    vi.stubGlobal("setTimeout", (fn: () => void) => timers.push(fn));
    vi.stubGlobal("clearTimeout", () => undefined);
    try {
      disconnectCancel(runs, GRACE).follow(run())(true);
    } finally {
      vi.unstubAllGlobals();
    }
    for (const fire of timers) fire();
    expect(cancels).toHaveLength(1);
  });
});
