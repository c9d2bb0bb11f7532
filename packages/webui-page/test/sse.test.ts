import { describe, expect, it } from "vitest";
import { SseParser } from "../src/client/sse.js";

describe("SSE parser", () => {
  it("parses thread, chunk and done events with ids", () => {
    const p = new SseParser();
    const events = p.push(
      'event: thread\ndata: t-1\n\nevent: chunk\nid: 1\ndata: {"a":1}\n\nevent: done\ndata: [DONE]\n\n',
    );
    expect(events).toEqual([
      { event: "thread", data: "t-1", id: undefined },
      { event: "chunk", data: '{"a":1}', id: "1" },
      { event: "done", data: "[DONE]", id: "1" },
    ]);
  });

  it("reassembles events split at any byte boundary", () => {
    const text = "event: chunk\r\ndata: one\r\ndata: two\r\n\r\nevent: done\rdata: [DONE]\r\r";
    for (let cut = 1; cut < text.length; cut++) {
      const p = new SseParser();
      const events = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut)), ...p.end()];
      expect(events.map((e) => [e.event, e.data])).toEqual([
        ["chunk", "one\ntwo"],
        ["done", "[DONE]"],
      ]);
    }
  });

  it("ignores comments, unknown fields and a leading BOM, and defaults the event name", () => {
    const p = new SseParser();
    const events = p.push("\uFEFF: keep-alive\nretry: 10\nfoo: bar\ndata:x\n\n");
    expect(events).toEqual([{ event: "message", data: "x", id: undefined }]);
  });

  it("does not dispatch an event without data or an unterminated one", () => {
    const p = new SseParser();
    expect(p.push("event: thread\n\n")).toEqual([]);
    expect(p.push("event: chunk\ndata: half")).toEqual([]);
  });
});
