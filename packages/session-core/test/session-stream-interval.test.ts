// A streamed preview is updated no more often than its entry's `streamIntervalMs` says.
import { describe, expect, it } from "vitest";
import { useRig } from "./session-harness.js";
import { streamed } from "./turn-harness.js";

const openRig = useRig();
const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");

describe("a streamed reply", () => {
  it("is updated once in its entry's streamIntervalMs, however long it streams within it", async () => {
    // 30 tokens at least 50 ms apart: the reply streams for 1.5 s or more, well within 60 s.
    const r = await openRig(streamed({ tokenDelayMs: 50, script: [{ text: words }] }, 60_000));
    await r.gateway.inject({ thread: "T", text: "talk for a while" });
    await r.session.idle();
    expect(r.gateway.streamCalls.map((c) => c.kind)).toEqual(["update", "finish"]);
    expect(r.gateway.textsTo("T")).toEqual([words]);
  });
});
