import { describe, expect, it } from "vitest";
import { makeChunk } from "../src/index.js";
import { RunEventLog } from "../src/event-log.js";

describe("RunEventLog", () => {
  it("replays the same envelopes before and after it is packed, finish reasons and kinds included", () => {
    const log = new RunEventLog(5);
    log.pushDelta("chatcmpl_a", "m", { role: "assistant", content: "Hel" });
    log.pushDelta("chatcmpl_a", "m", { content: 'lo\n"x"' });
    log.pushDelta("chatcmpl_a", "m", {
      tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "t", arguments: "" } }],
    });
    log.pushDelta("chatcmpl_a", "m", {}, "tool_calls");
    log.push(makeChunk("chatcmpl_b", "m2", {}, null, "middleware_stop"));
    const live = log.since(4);
    expect(live.map((e) => e.seq)).toEqual([5, 6, 7, 8, 9]);
    expect(live[3]?.chunk.choices[0].finish_reason).toBe("tool_calls");
    expect(live[4]?.chunk).toMatchObject({ id: "chatcmpl_b", model: "m2", kind: "middleware_stop" });
    expect(live[0]?.chunk).toMatchObject({ object: "chat.completion.chunk", id: "chatcmpl_a", model: "m" });

    log.retire();
    expect(log.since(4)).toEqual(live);
    expect(log.since(7)).toEqual(live.slice(3));
    expect(log.lastSeq).toBe(9);

    // A resumed run appends after the packed events; seq keeps increasing.
    log.pushDelta("chatcmpl_c", "m", { content: "more" });
    const all = log.since(0);
    expect(all.map((e) => e.seq)).toEqual([5, 6, 7, 8, 9, 10]);
    expect(all.slice(0, 5)).toEqual(live);
    expect(all[5]?.chunk.choices[0].delta).toEqual({ content: "more" });
  });

  it("stays unpacked while a reader is active and packs when the last reader leaves", () => {
    const log = new RunEventLog();
    log.pushDelta("id", "m", { content: "a" });
    log.addReader();
    log.retire();
    const before = log.since(0);
    log.removeReader();
    expect(log.since(0)).toEqual(before);
    expect(before[0]?.chunk.choices[0].delta).toEqual({ content: "a" });
  });
});
