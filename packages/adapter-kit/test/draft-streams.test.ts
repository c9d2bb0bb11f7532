import { describe, expect, it } from "vitest";
import { type DraftStreams, finishDraftOf, streamOf } from "../src/index.js";

describe("streamOf / finishDraftOf", () => {
  it("forward to the adapter's streams, running beforeFinish ahead of the final message", async () => {
    const calls: string[] = [];
    const streams: DraftStreams = {
      open: (thread) => {
        calls.push(`open ${thread}`);
        return { update: async () => undefined };
      },
      finish: async (thread, draft, text) => {
        calls.push(`finish ${thread} ${String(draft.id)} ${text}`);
        return { messageId: "m1" };
      },
    };
    const stream = streamOf(streams);
    const finishDraft = finishDraftOf(streams, (thread) => calls.push(`typing stopped ${thread}`));
    expect(stream("t1", {})).toBeDefined();
    expect(await finishDraft("t1", { id: 7 }, "done", { idempotencyKey: "k", attempt: 1 })).toEqual({
      messageId: "m1",
    });
    expect(calls).toEqual(["open t1", "typing stopped t1", "finish t1 7 done"]);
  });
});
