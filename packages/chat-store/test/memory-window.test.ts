// The prompt window of durable memory: everything is stored, a turn's prompt reads only the
// summary and the most recent messages, and automatic compaction stays off the turn's path.
import {
  createDemoModel,
  defineAgent,
  type Message,
  type ResolvedModel,
  RunManager,
  type RunManagerOptions,
  SUMMARY_PREFIX,
} from "@agentsvc/agent-core";
import { describe, expect, it, vi } from "vitest";
import type { ChatDb } from "../src/index.js";
import { eachDriver, tempRoot } from "./helpers.js";

type Model = Exclude<NonNullable<RunManagerOptions["model"]>, ResolvedModel>;
type CallOptions = Parameters<Model["doStream"]>[0];

const A = { userId: "alice", conversationId: "long" };

/** A stored turn with a tool call every third turn: user, [assistant call, tool result], assistant. */
function turnAt(i: number): Message[] {
  if (i % 3 !== 0)
    return [
      { role: "user", content: `question ${i}` },
      { role: "assistant", content: `answer ${i}` },
    ];
  return [
    { role: "user", content: `question ${i}` },
    { role: "assistant", content: "", toolCalls: [{ id: `call-${i}`, name: "clock", arguments: {} }] },
    { role: "tool", toolCallId: `call-${i}`, toolName: "clock", result: { i }, isError: false },
    { role: "assistant", content: `answer ${i}` },
  ];
}

/**
 * Stores whole turns until the scope holds at least `n` messages, in one append (multi-row
 * statements in one transaction): a statement per turn was 1,700 round trips for 5,000 messages,
 * 28 s on PostgreSQL in a whole run at load 10-30.
 */
async function seed(
  db: ChatDb,
  n: number,
  memory = db.createMemory({ canSummarize: false }),
): Promise<number> {
  const messages: Message[] = [];
  for (let i = 0; messages.length < n; i++) messages.push(...turnAt(i));
  await memory.append(A, messages);
  return messages.length;
}

/** Every tool result in `messages` follows the assistant message that called it. */
function pairsIntact(messages: Message[]): boolean {
  const called = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) called.add(c.id);
    if (m.role === "tool" && !called.has(m.toolCallId)) return false;
  }
  return true;
}

eachDriver((driver) => {
  describe("durable memory's prompt window", () => {
    it("a turn in a conversation of 5,000 stored messages sends at most maxMessages to the model, tool pairs intact", async () => {
      const db = await driver.open();
      const stored = await seed(db, 5_000);
      const memory = db.createMemory({ canSummarize: false, maxMessages: 40 });
      const prompts: CallOptions["prompt"][] = [];
      const demo = createDemoModel({});
      const model: Model = {
        ...demo,
        doGenerate: (options) => demo.doGenerate(options),
        doStream: (options) => {
          prompts.push(options.prompt);
          return demo.doStream(options);
        },
      };
      const runs = new RunManager({
        agent: defineAgent({ name: "a", model: { provider: "demo" } }),
        memory,
        model,
      });
      await runs.start({ input: "and now?", ...A }).done;

      const history = prompts[0]!.filter((m) => m.role !== "system");
      // The window (at most 40 stored messages) and the new user message.
      expect(history.length).toBeLessThanOrEqual(41);
      expect(history.length).toBeGreaterThan(30);
      const last = history[history.length - 1]!;
      expect(JSON.stringify(last.content)).toContain("and now?");
      expect(history[0]!.role).not.toBe("tool");
      // The whole conversation is still stored, plus the new turn.
      expect(await memory.count(A)).toBeGreaterThan(stored);
    }, 90_000);

    it("loadPrompt reads the most recent maxMessages, never starting with a tool result", async () => {
      const db = await driver.open();
      await seed(db, 5_000);
      const memory = db.createMemory({ canSummarize: false, maxMessages: 50 });
      const all = await memory.load(A);
      const window = await memory.loadPrompt(A);
      expect(window.length).toBeLessThanOrEqual(50);
      expect(window).toEqual(all.slice(all.length - window.length));
      expect(pairsIntact(window)).toBe(true);
      // Only leading tool results (whose call fell outside) are dropped from the last 50.
      const cut = all.slice(all.length - 50);
      const leadingResults = cut.findIndex((m) => m.role !== "tool");
      expect(window).toHaveLength(50 - leadingResults);
      expect(window[0]?.role).not.toBe("tool");
    }, 90_000);

    it("loadPrompt reads only its own scope: another conversation of the user and another user's same conversation stay out", async () => {
      const db = await driver.open();
      const memory = db.createMemory({ canSummarize: false, maxMessages: 10 });
      const say = (content: string): Message[] => [{ role: "user", content }];
      // Written interleaved, so a read of the wrong scope would find the others among the newest.
      for (let i = 0; i < 3; i++) {
        await memory.append(A, say(`alice long ${i}`));
        await memory.append({ userId: "alice", conversationId: "other" }, say(`alice other ${i}`));
        await memory.append({ userId: "bob", conversationId: "long" }, say(`bob long ${i}`));
      }
      const contents = async (scope: typeof A) =>
        (await memory.loadPrompt(scope)).map((m) => (m.role === "user" ? m.content : m.role));
      expect(await contents(A)).toEqual(["alice long 0", "alice long 1", "alice long 2"]);
      expect(await contents({ userId: "bob", conversationId: "long" })).toEqual([
        "bob long 0",
        "bob long 1",
        "bob long 2",
      ]);
      expect(await contents({ userId: "carol", conversationId: "long" })).toEqual([]);
    });

    it("keeps the summary first, whatever the window", async () => {
      const db = await driver.open();
      const memory = db.createMemory({
        canSummarize: true,
        summarize: async () => "the early part",
        maxMessages: 10,
      });
      await seed(db, 200, memory);
      await memory.summarize(A, { keepRecent: 100 });
      const window = await memory.loadPrompt(A);
      expect(window[0]).toEqual({ role: "system", content: `${SUMMARY_PREFIX}the early part` });
      expect(window.length).toBeLessThanOrEqual(11);
      expect(pairsIntact(window.slice(1))).toBe(true);

      // A scope shorter than the window carries its summary once.
      const short = db.createMemory({ canSummarize: true, summarize: async () => "s", maxMessages: 500 });
      const both = await short.loadPrompt(A);
      expect(both.filter((m) => m.role === "system")).toHaveLength(1);
      expect(both.slice(1)).toEqual((await short.load(A)).slice(1));
    });

    it("maxPromptTokens drops the oldest messages past the estimated budget", async () => {
      const db = await driver.open();
      await seed(db, 300);
      const unbounded = await db.createMemory({ canSummarize: false, maxMessages: 300 }).loadPrompt(A);
      const bounded = await db
        .createMemory({ canSummarize: false, maxMessages: 300, maxPromptTokens: 200 })
        .loadPrompt(A);
      expect(bounded.length).toBeLessThan(unbounded.length);
      expect(bounded.length).toBeGreaterThan(0);
      const tokens = bounded.reduce((n, m) => n + Math.ceil(JSON.stringify(m).length / 4), 0);
      expect(tokens).toBeLessThanOrEqual(200);
      expect(bounded).toEqual(unbounded.slice(unbounded.length - bounded.length));
      expect(pairsIntact(bounded)).toBe(true);
    });

    it("automatic compaction runs after the append has resolved, not inside it", async () => {
      const db = await driver.open();
      let release: (text: string) => void = () => {};
      let calls = 0;
      const memory = db.createMemory({
        canSummarize: true,
        summaryThreshold: 6,
        summarize: () => {
          calls++;
          return new Promise<string>((r) => (release = r));
        },
      });
      for (let i = 1; i <= 4; i++)
        await memory.append(A, [
          { role: "user", content: `q${i}` },
          { role: "assistant", content: `a${i}` },
        ]);
      // The append that passed the threshold has resolved; the summary is asked for after it and
      // is still being written: everything stays stored meanwhile.
      await vi.waitFor(() => expect(calls).toBe(1), { timeout: 5_000 });
      expect(await memory.count(A)).toBe(8);
      release("early");
      await memory.settled();
      const after = await memory.load(A);
      expect(after[0]).toEqual({ role: "system", content: `${SUMMARY_PREFIX}early` });
      expect(after.length).toBeLessThan(8);
    });

    // Several instances share a store only on PostgreSQL (SQLite is one machine, one process).
    it.skipIf(driver.name === "sqlite")("two instances on one database summarize a scope once", async () => {
      const root = tempRoot();
      const one = await driver.open({ appRoot: root });
      const two = await driver.open({ appRoot: root });
      let calls = 0;
      const summarize = async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 50));
        return "once";
      };
      const m1 = one.createMemory({ canSummarize: false });
      const m2 = two.createMemory({ canSummarize: true, summarize });
      await seed(one, 20, m1);
      const a = one.createMemory({ canSummarize: true, summarize, summaryThreshold: 10 });
      const b = two.createMemory({ canSummarize: true, summarize, summaryThreshold: 10 });
      await Promise.all([
        a.append(A, [{ role: "user", content: "x" }]),
        b.append(A, [{ role: "user", content: "y" }]),
      ]);
      await Promise.all([a.settled(), b.settled()]);
      expect(calls).toBe(1);
      const stored = await m2.load(A);
      expect(stored.filter((m) => m.role === "system")).toHaveLength(1);
    });
  });
});
