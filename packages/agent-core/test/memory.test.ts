import { describe, expect, it } from "vitest";
import {
  compactMessages,
  createSummarizer,
  defineAgent,
  estimateTokens,
  isSummary,
  type Message,
  planCompaction,
  promptWindow,
  RunManager,
  SUMMARY_PREFIX,
  trimWindow,
  WindowMemory,
} from "../src/index.js";

const scope = { userId: "u", conversationId: "c" };
const other = { userId: "v", conversationId: "c" };

const history: Message[] = [
  { role: "user", content: "one" },
  { role: "assistant", content: "a1" },
  { role: "user", content: "two" },
  {
    role: "assistant",
    content: "",
    toolCalls: [
      { id: "t1", name: "x", arguments: {} },
      { id: "t2", name: "x", arguments: {} },
    ],
  },
  { role: "tool", toolCallId: "t1", toolName: "x", result: "r1" },
  { role: "tool", toolCallId: "t2", toolName: "x", result: "r2" },
  { role: "assistant", content: "a2" },
];

describe("planCompaction", () => {
  it("moves the cut back so an assistant tool call stays with its results", () => {
    // keepRecent 2 would start the kept part at the second tool result.
    const plan = planCompaction(history, 2);
    expect(plan.keep[0]).toMatchObject({ role: "assistant", toolCalls: [{ id: "t1" }, { id: "t2" }] });
    expect(plan.summarize).toEqual(history.slice(0, 3));
    expect(plan.keep.length).toBe(4);
  });

  it("plans nothing when the history is at or under keepRecent", () => {
    expect(planCompaction(history, 7).summarize).toEqual([]);
    expect(planCompaction(history, 50).keep).toEqual(history);
  });

  it("summarizes everything with keepRecent 0", () => {
    expect(planCompaction(history, 0)).toEqual({ summarize: history, keep: [] });
  });
});

describe("promptWindow", () => {
  const talk = (n: number): Message[] =>
    Array.from(
      { length: n },
      (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `m${i}` }) as Message,
    );

  it("keeps the most recent maxMessages and puts the summary first", () => {
    const summary: Message = { role: "system", content: `${SUMMARY_PREFIX}before` };
    expect(promptWindow(talk(10), { maxMessages: 3 }, summary)).toEqual([summary, ...talk(10).slice(7)]);
    expect(isSummary(summary)).toBe(true);
    expect(isSummary({ role: "system", content: "be brief" })).toBe(false);
  });

  it("drops a tool result whose call fell out of the window", () => {
    const history: Message[] = [
      { role: "user", content: "time?" },
      { role: "assistant", content: "", toolCalls: [{ id: "c", name: "clock", arguments: {} }] },
      { role: "tool", toolCallId: "c", toolName: "clock", result: "noon", isError: false },
      { role: "assistant", content: "noon" },
    ];
    expect(promptWindow(history, { maxMessages: 2 }).map((m) => m.role)).toEqual(["assistant"]);
  });

  it("fits the estimated token budget from the newest message back", () => {
    const history = talk(50);
    const cost = estimateTokens(history[49] as Message);
    const window = promptWindow(history, { maxMessages: 50, maxPromptTokens: cost * 5 });
    expect(window).toEqual(history.slice(45));
    // The newest message stays even when it alone is over the budget.
    expect(promptWindow(history, { maxPromptTokens: 1 })).toEqual(history.slice(49));
  });

  it("WindowMemory's prompt obeys maxPromptTokens while it keeps maxMessages", async () => {
    const memory = new WindowMemory({ maxMessages: 40, maxPromptTokens: 30 });
    const scope = { userId: "u", conversationId: "c" };
    await memory.append(scope, talk(20));
    expect(await memory.load(scope)).toHaveLength(20);
    const prompt = await memory.loadPrompt(scope);
    expect(prompt.length).toBeLessThan(20);
    expect(prompt.reduce((n, m) => n + estimateTokens(m), 0)).toBeLessThanOrEqual(30);
  });
});

describe("WindowMemory", () => {
  it("forgets the least recently used conversation past maxConversations, keeping the ones in use", async () => {
    const memory = new WindowMemory({ maxConversations: 2 });
    const a = { userId: "u", conversationId: "a" };
    const b = { userId: "u", conversationId: "b" };
    const c = { userId: "u", conversationId: "c" };
    await memory.append(a, [{ role: "user", content: "in a" }]);
    await memory.append(b, [{ role: "user", content: "in b" }]);
    await memory.load(a); // a is now more recently used than b
    await memory.append(c, [{ role: "user", content: "in c" }]);
    expect(await memory.count(b)).toBe(0);
    expect(await memory.load(a)).toEqual([{ role: "user", content: "in a" }]);
    expect(await memory.load(c)).toEqual([{ role: "user", content: "in c" }]);
  });

  it("hands out copies: changing loaded or appended messages never changes what is stored", async () => {
    const memory = new WindowMemory();
    const appended: Message[] = [
      { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "x", arguments: { city: "Oslo" } }] },
      { role: "tool", toolCallId: "t1", toolName: "x", result: { forecast: ["sun"] } },
    ];
    await memory.append(scope, appended);
    (appended[1] as { result: { forecast: string[] } }).result.forecast.push("rain");
    const loaded = await memory.load(scope);
    (loaded[0] as { content: string }).content = "changed";
    (
      (loaded[0] as { toolCalls: { arguments: { city: string } }[] }).toolCalls[0] as {
        arguments: { city: string };
      }
    ).arguments.city = "Bergen";
    (loaded[1] as { result: { forecast: string[] } }).result.forecast.push("snow");
    expect(await memory.load(scope)).toEqual([
      { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "x", arguments: { city: "Oslo" } }] },
      { role: "tool", toolCallId: "t1", toolName: "x", result: { forecast: ["sun"] } },
    ]);
  });

  it("keeps reasoning parts with their metadata, as copies a caller cannot change", async () => {
    const memory = new WindowMemory();
    const stored: Message = {
      role: "assistant",
      content: "",
      reasoning: "ab",
      reasoningParts: [
        { text: "a", metadata: { anthropic: { signature: "s1" } } },
        { text: "b", metadata: { anthropic: { signature: "s2" } } },
      ],
      toolCalls: [{ id: "t1", name: "x", arguments: {} }],
    };
    const original = structuredClone(stored);
    type Parts = { text: string; metadata: { anthropic: { signature: string } } }[];
    const partsOf = (m: Message | undefined) => (m as unknown as { reasoningParts: Parts }).reasoningParts;
    await memory.append(scope, [stored]);
    (partsOf(stored)[0] as Parts[number]).metadata.anthropic.signature = "x";
    const loaded = await memory.load(scope);
    expect(loaded).toEqual([original]);
    (partsOf(loaded[0])[1] as Parts[number]).metadata.anthropic.signature = "y";
    (partsOf(loaded[0])[1] as Parts[number]).text = "changed";
    expect(await memory.load(scope)).toEqual([original]);
  });

  it("keeps scopes apart and clears exactly one scope", async () => {
    const memory = new WindowMemory();
    await memory.append(scope, [{ role: "user", content: "mine" }]);
    await memory.append(other, [{ role: "user", content: "theirs" }]);
    await memory.clear(scope);
    expect(await memory.count(scope)).toBe(0);
    expect(await memory.load(other)).toEqual([{ role: "user", content: "theirs" }]);
  });

  it("trims to maxMessages without leaving a tool result whose call was dropped", async () => {
    const memory = new WindowMemory({ maxMessages: 2 });
    await memory.append(scope, history.slice(0, 6));
    const kept = await memory.load(scope);
    expect(kept.length).toBeLessThanOrEqual(2);
    expect(kept[0]?.role).not.toBe("tool");
    expect(trimWindow(history, 3).map((m) => m.role)).toEqual(["assistant"]);
  });

  it("summarize is a no-op without a summary model", async () => {
    const memory = new WindowMemory();
    await memory.append(scope, history);
    expect(memory.canSummarize).toBe(false);
    expect(await memory.summarize(scope, { keepRecent: 2 })).toEqual({
      compacted: false,
      before: 7,
      after: 7,
    });
  });

  it("summarizes with the demo summary provider, keeping tool pairs together", async () => {
    const summarize = createSummarizer(
      { summaryProvider: "demo", summaryModel: "demo" },
      { provider: "demo" },
    );
    const memory = new WindowMemory({ summarize });
    await memory.append(scope, history);
    const result = await memory.summarize(scope, { keepRecent: 2 });
    expect(result).toEqual({ compacted: true, before: 7, after: 5 });
    const after = await memory.load(scope);
    expect(after[0]).toEqual({
      role: "system",
      content: `${SUMMARY_PREFIX}3 earlier messages (demo summarizer); the user said "one", "two"`,
    });
    expect(after.slice(1)).toEqual(history.slice(3));
  });

  it("compacts automatically once summaryThreshold is passed", async () => {
    const summarize = async (messages: Message[]) => `${messages.length} summarized`;
    const memory = new WindowMemory({ summarize, summaryThreshold: 4 });
    await memory.append(scope, history.slice(0, 3));
    expect(await memory.count(scope)).toBe(3);
    await memory.append(scope, [
      { role: "assistant", content: "x" },
      { role: "user", content: "y" },
    ]);
    const after = await memory.load(scope);
    expect(after[0]).toEqual({ role: "system", content: `${SUMMARY_PREFIX}3 summarized` });
    expect(after.length).toBe(3);
  });

  it("compactMessages reports counts and leaves input alone without a summarizer", async () => {
    expect((await compactMessages(history, 1, undefined)).result).toEqual({
      compacted: false,
      before: 7,
      after: 7,
    });
  });
});

describe("createSummarizer", () => {
  it("is undefined unless both summaryProvider and summaryModel are set", () => {
    expect(createSummarizer(undefined, { provider: "demo" })).toBeUndefined();
    expect(createSummarizer({ summaryProvider: "demo" }, { provider: "demo" })).toBeUndefined();
    expect(createSummarizer({ summaryModel: "m" }, { provider: "demo" })).toBeUndefined();
  });

  it("names the missing API key variable for a real provider", () => {
    expect(() =>
      createSummarizer(
        { summaryProvider: "openai", summaryModel: "gpt-x" },
        { provider: "demo" },
        { env: {} },
      ),
    ).toThrow(/OPENAI_API_KEY is not set/);
  });

  it("the RunManager's default memory can summarize when the agent's memory config asks for it", () => {
    const agent = defineAgent({
      name: "a",
      model: { provider: "demo" },
      memory: { summaryProvider: "demo", summaryModel: "demo" },
    });
    expect(new RunManager({ agent }).describe().canSummarize).toBe(true);
  });
});
