// A preview update the platform never answers: the turn's commit waits for it only up to the
// session's bound, then aborts it, so the reply still goes out and the aborted update never lands.
import { describe, expect, it } from "vitest";
import { until, useRig } from "./session-harness.js";

const openRig = useRig();

describe("a streamed preview whose update never settles", () => {
  it("is aborted at the bound: the turn commits and sends its reply, and the update never lands after it", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const signals: AbortSignal[] = [];
    const r = await openRig({
      // Each update stays in flight until the test releases it (after the reply went out).
      gateway: {
        stream: {
          slowUpdate: async (_text, signal) => {
            if (signal) signals.push(signal);
            await held;
          },
        },
      },
      entries: [{ name: "mock", type: "mock", streamIntervalMs: 20 }],
      streamUpdateTimeoutMs: 200,
      tokenDelayMs: 5,
    });
    await r.gateway.inject({ thread: "T", text: "hello there" });
    await until(() => r.gateway.textsTo("T").length === 1, "the final reply despite the hung update");
    const reply = r.gateway.textsTo("T")[0];
    expect(reply).toContain("hello there");
    // Usually one update (the turn ends within the bound); a slow machine may start another after it.
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    expect(r.logs.lines().filter((l) => l.msg === "stream update timed out; aborted")).toHaveLength(
      signals.length,
    );

    // The platform answers the aborted call late: it does not land over the final message.
    release();
    await r.session.idle();
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.gateway.streamCalls).toEqual([]);
    expect(r.gateway.textsTo("T")).toEqual([reply]);
    expect(await r.db.inbox.unfinished()).toEqual([]);
  });
});
