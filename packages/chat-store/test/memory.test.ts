import { AgentsvcError, type Message, type SuspendedRun } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import { eachDriver, tempRoot } from "./helpers.js";

eachDriver((driver) => {
  const A = { userId: "alice", conversationId: "c1" };
  const B = { userId: "bob", conversationId: "c1" };

  function turn(i: number): Message[] {
    return [
      { role: "user", content: `question ${i}` },
      { role: "assistant", content: `answer ${i}` },
    ];
  }

  /** A durable memory whose summary is produced only when the test calls `release(text)`. */
  async function gatedSummaryMemory() {
    let resolve: ((text: string) => void) | undefined;
    const memory = (await driver.open()).createMemory({
      canSummarize: true,
      summarize: () => new Promise<string>((r) => (resolve = r)),
    });
    const release = (text: string) => {
      if (!resolve) throw new Error("no summary is being generated");
      resolve(text);
    };
    return { memory, release };
  }

  describe("durable Memory", () => {
    it("appends and loads a scope's messages in order, with every field intact", async () => {
      const memory = (await driver.open()).createMemory({ canSummarize: false });
      const messages: Message[] = [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: "",
          reasoning: "need a tool",
          // Anthropic thinking blocks with the signatures the provider needs back on later turns.
          reasoningParts: [
            { text: "need a tool", metadata: { anthropic: { signature: "sig-1" } } },
            { text: "", metadata: { anthropic: { redactedData: "opaque==" } } },
          ],
          toolCalls: [{ id: "t1", name: "weather", arguments: { city: "Oslo" } }],
        },
        { role: "tool", toolCallId: "t1", toolName: "weather", result: { c: -3 }, isError: false },
        { role: "assistant", content: "It is -3°C." },
      ];
      await memory.append(A, messages.slice(0, 2));
      await memory.append(A, messages.slice(2));
      expect(await memory.load(A)).toEqual(messages);
      expect(await memory.count(A)).toBe(4);
    });

    it("keeps everything: no window trims a long conversation", async () => {
      const memory = (await driver.open()).createMemory({ canSummarize: false });
      for (let i = 0; i < 150; i++) await memory.append(A, turn(i));
      expect(await memory.count(A)).toBe(300);
      expect((await memory.load(A))[0]).toEqual({ role: "user", content: "question 0" });
    });

    it("user B never sees, counts or clears user A's messages under the same conversationId", async () => {
      const memory = (await driver.open()).createMemory({ canSummarize: false });
      await memory.append(A, turn(1));
      await memory.append(B, turn(2));
      expect(await memory.load(B)).toEqual(turn(2));
      await memory.clear(B);
      expect(await memory.count(B)).toBe(0);
      expect(await memory.load(A)).toEqual(turn(1));
      await memory.clear({ userId: "alice", conversationId: "other" });
      expect(await memory.count(A)).toBe(2);
    });

    it("refuses a scope without userId or conversationId", async () => {
      const memory = (await driver.open()).createMemory({ canSummarize: false });
      await expect(memory.load({ userId: "", conversationId: "c" })).rejects.toBeInstanceOf(AgentsvcError);
      await expect(memory.append({ userId: "u", conversationId: "" }, turn(1))).rejects.toThrow(
        /conversationId/,
      );
    });

    it("canSummarize is false without a summary model and summarize is then a no-op", async () => {
      const memory = (await driver.open()).createMemory({ canSummarize: false });
      for (let i = 0; i < 5; i++) await memory.append(A, turn(i));
      expect(memory.canSummarize).toBe(false);
      expect(await memory.summarize(A, { keepRecent: 2 })).toEqual({
        compacted: false,
        before: 10,
        after: 10,
      });
      expect(await memory.count(A)).toBe(10);
    });

    it("refuses canSummarize without a summarize function", async () => {
      const db = await driver.open();
      expect(() => db.createMemory({ canSummarize: true })).toThrow(/no summarize function/);
    });

    it("summarize replaces older messages of one scope by one summary and keeps the most recent", async () => {
      const seen: Message[][] = [];
      const memory = (await driver.open()).createMemory({
        canSummarize: true,
        summarize: async (messages) => {
          seen.push(messages);
          return `summary of ${messages.length}`;
        },
      });
      for (let i = 0; i < 5; i++) await memory.append(A, turn(i));
      await memory.append(B, turn(9));
      const result = await memory.summarize(A, { keepRecent: 4 });
      expect(result).toEqual({ compacted: true, before: 10, after: 5 });
      expect(seen[0]).toEqual([...turn(0), ...turn(1), ...turn(2)]);
      const loaded = await memory.load(A);
      expect(loaded[0]).toMatchObject({ role: "system" });
      expect((loaded[0] as { content: string }).content).toMatch(/summary of 6$/);
      expect(loaded.slice(1)).toEqual([...turn(3), ...turn(4)]);
      expect(await memory.load(B)).toEqual(turn(9));
    });

    it("summarize is a no-op when the scope is at or under keepRecent", async () => {
      let calls = 0;
      const memory = (await driver.open()).createMemory({
        canSummarize: true,
        summarize: async () => {
          calls++;
          return "x";
        },
      });
      await memory.append(A, turn(1));
      expect(await memory.summarize(A, { keepRecent: 2 })).toEqual({ compacted: false, before: 2, after: 2 });
      expect(calls).toBe(0);
    });

    it("summarize never separates a tool call from its results", async () => {
      const memory = (await driver.open()).createMemory({ canSummarize: true, summarize: async () => "s" });
      const history: Message[] = [
        ...turn(0),
        { role: "user", content: "look it up" },
        {
          role: "assistant",
          content: "",
          toolCalls: [
            { id: "a", name: "t", arguments: {} },
            { id: "b", name: "t", arguments: {} },
          ],
        },
        { role: "tool", toolCallId: "a", toolName: "t", result: 1 },
        { role: "tool", toolCallId: "b", toolName: "t", result: 2 },
        { role: "assistant", content: "done" },
      ];
      await memory.append(A, history);
      // keepRecent 2 would start the tail at tool result "b"; the cut moves back to the call.
      const result = await memory.summarize(A, { keepRecent: 2 });
      expect(result).toEqual({ compacted: true, before: 7, after: 5 });
      const loaded = await memory.load(A);
      expect(loaded.slice(1)).toEqual(history.slice(3));
    });

    it("a failing summarizer leaves every message in place", async () => {
      const memory = (await driver.open()).createMemory({
        canSummarize: true,
        summarize: async () => {
          throw new Error("model down");
        },
      });
      for (let i = 0; i < 4; i++) await memory.append(A, turn(i));
      await expect(memory.summarize(A, { keepRecent: 2 })).rejects.toThrow("model down");
      expect(await memory.count(A)).toBe(8);
    });

    it("messages appended while the summary is generated are kept after it", async () => {
      const { memory, release } = await gatedSummaryMemory();
      for (let i = 0; i < 3; i++) await memory.append(A, turn(i));
      const pending = memory.summarize(A, { keepRecent: 2 });
      await new Promise((r) => setTimeout(r, 10));
      await memory.append(A, turn(3));
      release("s");
      expect(await pending).toMatchObject({ compacted: true, after: 5 });
      const loaded = await memory.load(A);
      expect(loaded.slice(1)).toEqual([...turn(2), ...turn(3)]);
    });

    it("a clear during summary generation wins: nothing is resurrected", async () => {
      const { memory, release } = await gatedSummaryMemory();
      for (let i = 0; i < 3; i++) await memory.append(A, turn(i));
      const pending = memory.summarize(A, { keepRecent: 2 });
      await new Promise((r) => setTimeout(r, 10));
      await memory.clear(A);
      release("s");
      expect(await pending).toEqual({ compacted: false, before: 0, after: 0 });
      expect(await memory.count(A)).toBe(0);
    });

    it("rejects a negative or fractional keepRecent", async () => {
      const memory = (await driver.open()).createMemory({ canSummarize: true, summarize: async () => "s" });
      await expect(memory.summarize(A, { keepRecent: -1 })).rejects.toMatchObject({
        code: "invalid_keep_recent",
      });
      await expect(memory.summarize(A, { keepRecent: 1.5 })).rejects.toMatchObject({ status: 400 });
    });

    it("compacts automatically past summaryThreshold, keeping half", async () => {
      const memory = (await driver.open()).createMemory({
        canSummarize: true,
        summarize: async () => "auto",
        summaryThreshold: 6,
      });
      for (let i = 0; i < 3; i++) await memory.append(A, turn(i));
      expect(await memory.count(A)).toBe(6);
      await memory.append(A, turn(3));
      await memory.settled();
      expect(await memory.count(A)).toBe(4);
      expect((await memory.load(A)).slice(1)).toEqual([
        { role: "assistant", content: "answer 2" },
        ...turn(3),
      ]);
    });
  });

  function suspended(
    threadId: string,
    userId: string,
    conversationId: string,
    createdAt: number,
  ): SuspendedRun {
    return {
      options: {
        threadId,
        userId,
        conversationId,
        origin: { gateway: "telegram", thread: "42", meta: { chatId: 42 } },
      },
      agentName: "helper",
      turnMessages: [
        { role: "user", content: "delete the file" },
        {
          role: "assistant",
          content: "",
          toolCalls: [{ id: "call-1", name: "rm", arguments: { path: "/tmp/x" } }],
        },
      ],
      pendingCall: { id: "call-1", name: "rm", arguments: { path: "/tmp/x" } },
      remainingCalls: [{ id: "call-2", name: "ls", arguments: {} }],
      queuedSteers: ["also be careful"],
      createdAt,
    };
  }

  function decided(threadId: string, by: string): SuspendedRun {
    return {
      ...suspended(threadId, "alice", "c1", 1000),
      continuation: { phase: "decided", decision: { decision: "approve", decidedBy: by } },
    };
  }

  function decidedBy(run: SuspendedRun | undefined): string | undefined {
    return (run?.continuation as { decision?: { decidedBy: string } } | undefined)?.decision?.decidedBy;
  }

  describe("durable RunStore", () => {
    it("saves and returns a suspended run exactly, owner included", async () => {
      const store = (await driver.open()).runStore;
      const run = suspended("t1", "alice", "c1", 1000);
      await store.save(run);
      expect(await store.get("t1")).toEqual(run);
      expect((await store.get("t1"))?.options.userId).toBe("alice");
      expect(await store.get("nope")).toBeUndefined();
    });

    it("save overwrites the same threadId; delete removes it", async () => {
      const store = (await driver.open()).runStore;
      await store.save(suspended("t1", "alice", "c1", 1000));
      const updated = { ...suspended("t1", "alice", "c1", 1000), queuedSteers: [] };
      await store.save(updated);
      expect(await store.get("t1")).toEqual(updated);
      await store.delete("t1");
      expect(await store.get("t1")).toBeUndefined();
      expect(await store.list()).toEqual([]);
    });

    it("records a decision once: a second decision of the same run is refused, the first one stays", async () => {
      const store = (await driver.open()).runStore;
      await store.save(suspended("t9", "alice", "c1", 1000));
      await store.save(decided("t9", "one"));
      await expect(store.save(decided("t9", "two"))).rejects.toMatchObject({
        code: "not_found",
        status: 404,
      });
      expect(decidedBy(await store.get("t9"))).toBe("one");
    });

    // Two instances over one database: PostgreSQL only (SQLite is one machine's store; two
    // connections in one process would wait on each other's write lock on the same event loop).
    it.runIf(driver.name === "postgres")(
      "two instances deciding the same run at once: one wins, the other is refused",
      async () => {
        const root = tempRoot();
        const one = (await driver.open({ appRoot: root })).runStore;
        const two = (await driver.open({ appRoot: root })).runStore;
        await one.save(suspended("t8", "alice", "c1", 1000));
        const results = await Promise.allSettled([
          one.save(decided("t8", "one")),
          two.save(decided("t8", "two")),
        ]);
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
        expect(refused.reason).toMatchObject({ code: "not_found", status: 404 });
        const winner = results[0]?.status === "fulfilled" ? "one" : "two";
        expect(decidedBy(await one.get("t8"))).toBe(winner);
      },
    );

    it("lists by (userId, conversationId) and in full, oldest first", async () => {
      const store = (await driver.open()).runStore;
      await store.save(suspended("t2", "alice", "c1", 2000));
      await store.save(suspended("t1", "alice", "c1", 1000));
      await store.save(suspended("t3", "bob", "c1", 1500));
      await store.save(suspended("t4", "alice", "c2", 500));
      expect((await store.listByConversation("alice", "c1")).map((r) => r.options.threadId)).toEqual([
        "t1",
        "t2",
      ]);
      expect((await store.listByConversation("bob", "c1")).map((r) => r.options.threadId)).toEqual(["t3"]);
      expect((await store.list()).map((r) => r.options.threadId)).toEqual(["t4", "t1", "t3", "t2"]);
    });
  });
});
