// An idle thread stays with the instance that ran it for the default hold (5 s, session-options.ts):
// its next message, recorded by another instance a few seconds later, is announced to the holder and
// run there, not taken over (a lock, an adoption and a give-back on each side: #45.3, where the
// cluster bench's threads got their next message 1.4-4.8 s after the last on three instances).
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryCluster } from "../src/testing/index.js";
import { type Rig, tempDir, until, useRig } from "./session-harness.js";

const T = "T";
const TID = `gw:mock:${T}`;
const openRig = useRig();

let sent = 0;
/** A platform message with an id unique across instances (each mock counts its own ids). */
const say = (r: Rig, text: string) => r.gateway.inject({ thread: T, text, id: `m${++sent}` });

afterEach(() => {
  vi.useRealTimers();
});

describe("an idle thread with the default hold", () => {
  it("is still held 3 s after its turn, and its next message recorded elsewhere runs on its holder", async () => {
    // The hold's timer on a fake clock the test moves (the rest of the rigs' timers too).
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["setTimeout", "clearTimeout"] });
    const dir = tempDir();
    const cluster = createMemoryCluster();
    const common = { dir, sweepMs: 600_000 };
    const a = await openRig({ ...common, coordination: cluster.instance("a") });
    const b = await openRig({ ...common, coordination: cluster.instance("b"), store: a.db });
    await say(a, "first");
    await until(() => a.gateway.textsTo(T).length === 1, "the first reply");
    await a.session.idle();
    await vi.advanceTimersByTimeAsync(3000);
    await a.session.idle(); // a let-go the hold's end started is over
    expect(cluster.holders().get(TID)).toBe("a");
    await say(b, "second");
    await until(() => a.gateway.textsTo(T).length + b.gateway.textsTo(T).length === 2, "the second reply");
    expect(a.runs.starts.map((s) => s.input)).toEqual(["first", "second"]);
    expect(b.runs.starts).toEqual([]);
  });
});
