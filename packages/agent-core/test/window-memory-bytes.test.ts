// #38 item 1: window memory is bounded by bytes as well as by conversations: a few clients sending
// large messages to many conversations must not fill the heap (10,000 conversations x 100 messages
// of up to 1 MiB each was the bound before).
import { describe, expect, it } from "vitest";
import type { Message } from "../src/messages.js";
import { WindowMemory } from "../src/window-memory.js";

const KB = 1024;
const big = (tag: string, kb: number): Message => ({
  role: "user",
  content: `${tag}:${"x".repeat(kb * KB)}`,
});
const tags = (messages: Message[]) =>
  messages.map((m) => ("content" in m ? String(m.content).split(":")[0] : m.role));

describe("WindowMemory's byte bound", () => {
  it("forgets the least recently used conversations once their messages pass maxBytes, keeping the one in use", async () => {
    const memory = new WindowMemory({ maxBytes: 1000 * KB });
    for (let c = 0; c < 30; c++) {
      for (let turn = 0; turn < 2; turn++)
        await memory.append({ userId: "u", conversationId: `c${c}` }, [big(`c${c}t${turn}`, 50)]);
    }
    expect(memory.held.bytes).toBeLessThanOrEqual(1000 * KB);
    expect(memory.held.conversations).toBeLessThan(30);
    expect(tags(await memory.load({ userId: "u", conversationId: "c29" }))).toEqual(["c29t0", "c29t1"]);
    expect(await memory.load({ userId: "u", conversationId: "c0" })).toEqual([]);
  });

  it("keeps one conversation within an eighth of maxBytes, dropping its oldest messages first and never the newest", async () => {
    const memory = new WindowMemory({ maxBytes: 800 * KB });
    const scope = { userId: "u", conversationId: "one" };
    for (let turn = 0; turn < 6; turn++) await memory.append(scope, [big(`t${turn}`, 30)]);
    // 100 KB per conversation: three 30 KB messages.
    expect(tags(await memory.load(scope))).toEqual(["t3", "t4", "t5"]);
    await memory.append(scope, [big("huge", 200)]);
    expect(tags(await memory.load(scope))).toEqual(["huge"]);
    expect(memory.held.conversations).toBe(1);
    await memory.clear(scope);
    expect(memory.held).toEqual({ conversations: 0, bytes: 0 });
  });
});
