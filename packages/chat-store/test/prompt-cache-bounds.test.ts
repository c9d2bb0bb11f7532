// #38 item 1: the cached prompt windows are bounded by bytes, not only by scope count, and a window
// is cut to `maxPromptTokens` before it is kept (900 KB messages in 250 conversations grew the heap
// until the process died: 2,000 scopes x 100 rows of up to 1 MiB each).
import { type Message, promptWindow } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import type { StoreContext } from "../src/context.js";
import { type CachedWindow, PromptCache, promptCacheOf, type WindowEntry } from "../src/prompt-cache.js";
import { sqliteDriver } from "./helpers.js";

const say = (text: string): Message => ({ role: "user", content: text });
const KB = 1024;

function windowOf(rows: number, rowSize: number): CachedWindow {
  const entries: WindowEntry[] = Array.from({ length: rows }, (_, i) => ({
    id: i + 1,
    role: "user",
    message: say("x"),
    size: rowSize,
  }));
  return {
    limit: 100,
    budget: undefined,
    dataVersion: 1,
    losses: 0,
    head: entries[0],
    rows: entries,
    lastId: rows,
  };
}

describe("the prompt cache's bounds", () => {
  it("forgets the least recently used windows once their rows pass the byte bound, whatever the scope count", () => {
    const cache = new PromptCache({ maxScopes: 2000, maxBytes: 1000 * KB });
    for (let i = 0; i < 40; i++) cache.save(`s${i}`, windowOf(10, 10 * KB)); // 100 KB each
    expect(cache.held.bytes).toBeLessThanOrEqual(1000 * KB);
    expect(cache.held.windows).toBe(10);
    // The newest are kept, the oldest went first.
    expect(cache.usable("s39", 100, undefined, 1, 0)).toBeDefined();
    expect(cache.usable("s29", 100, undefined, 1, 0)).toBeUndefined();
  });

  it("keeps no window larger than an eighth of the bound, and counts a replaced or forgotten window out", () => {
    const cache = new PromptCache({ maxBytes: 800 * KB });
    cache.save("big", windowOf(2, 101 * KB));
    expect(cache.held).toEqual({ windows: 0, bytes: 0 });
    cache.save("a", windowOf(1, 50 * KB));
    cache.save("a", windowOf(1, 60 * KB));
    expect(cache.held).toEqual({ windows: 1, bytes: 60 * KB });
    cache.invalidate("a");
    expect(cache.held).toEqual({ windows: 0, bytes: 0 });
  });
});

describe("a window extended by appends", () => {
  it("keeps at most its own limit of rows, the newest, and counts only those", () => {
    const cache = new PromptCache();
    cache.save("s", { ...windowOf(2, 10), limit: 2 });
    const body = JSON.stringify(say("appended"));
    cache.extend(
      "s",
      [3, 4, 5].map((id) => ({ id, role: "user", body })),
      0,
    );
    const window = cache.usable("s", 2, undefined, 1, 0);
    expect(window?.rows.map((r) => r.id)).toEqual([4, 5]);
    expect(window?.lastId).toBe(5);
    expect(cache.held.bytes).toBe(2 * body.length + 10); // the two newest, and the head (id 1) apart
  });
});

describe("[sqlite] a window cut to maxPromptTokens before it is cached", () => {
  it("holds only what the prompt carries, and the prompt is the same as a fresh read's", async () => {
    const db = await sqliteDriver.open();
    const budget = 30_000; // estimated tokens: about 120 KB of JSON
    const memory = db.createMemory({ canSummarize: false, maxPromptTokens: budget });
    const scope = { userId: "anonymous", conversationId: "big" };
    for (let turn = 0; turn < 20; turn++) {
      await memory.append(scope, [say(`${turn}:${"x".repeat(50 * KB)}`)]);
      await memory.loadPrompt(scope);
    }
    const cache = promptCacheOf((db as unknown as { ctx: StoreContext }).ctx);
    // 20 rows of 50 KB are stored; the prompt carries 2 (100 KB, under 120 KB), and so does the cache.
    expect(cache.held.windows).toBe(1);
    expect(cache.held.bytes).toBeLessThan(3 * 51 * KB);
    const prompt = await memory.loadPrompt(scope);
    // The rule applied to every stored message, without any cache.
    const fresh = promptWindow(await memory.load(scope), { maxPromptTokens: budget });
    expect(prompt.map((m) => ("content" in m ? String(m.content).slice(0, 3) : ""))).toEqual(["18:", "19:"]);
    expect(prompt).toEqual(fresh);
    db.close();
  });
});
