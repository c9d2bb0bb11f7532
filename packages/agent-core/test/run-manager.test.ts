import * as v from "valibot";
import { describe, expect, it, vi } from "vitest";
import {
  AgentsvcError,
  CANCELLED_RESULT,
  DEMO_MODEL_ID,
  defineAgent,
  defineTool,
  InMemoryRunStore,
  type Message,
  type RunEvent,
  type RunHandle,
  RunManager,
  WindowMemory,
} from "../src/index.js";
import { collect, contentOf, firstContent, reasoningOf } from "./helpers.js";

const user = { userId: "alice", conversationId: "c1" };

const weather = defineTool({
  name: "weather",
  description: "Weather for a city",
  input: v.object({ city: v.string() }),
  execute: ({ city }) => ({ city, forecast: "sunny" }),
});

describe("RunManager with the demo model", () => {
  it("echoes the user message through streamed chunks and persists the turn before done", async () => {
    const memory = new WindowMemory();
    const runs = new RunManager({ agent: defineAgent({ name: "a", model: { provider: "demo" } }), memory });
    const handle = runs.start({ input: "hello there", ...user });
    expect(handle.threadId).toMatch(/^thr_/);
    const events = await collect(handle);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]?.chunk.object).toBe("chat.completion.chunk");
    expect(events[0]?.chunk.choices[0].delta.role).toBe("assistant");
    expect(events[0]?.chunk.model).toBe(DEMO_MODEL_ID);
    expect(contentOf(events)).toContain('You said: "hello there"');
    expect(reasoningOf(events).length).toBeGreaterThan(0);
    const result = await handle.done;
    expect(result.status).toBe("completed");
    const stored = await memory.load(user);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(stored[1]).toMatchObject({ role: "assistant", content: result.text, reasoning: result.reasoning });
    expect(result.newMessages).toEqual(stored);
  });

  it("calls the tool the user names, validates its input, and answers with the result", async () => {
    const memory = new WindowMemory();
    const runs = new RunManager({
      agent: defineAgent({ name: "a", model: { provider: "demo" }, tools: [weather] }),
      memory,
    });
    const handle = runs.start({ input: "please use weather for Paris", ...user });
    const events = await collect(handle);
    const fragments = events.flatMap((e) => e.chunk.choices[0].delta.tool_calls ?? []);
    expect(fragments[0]).toMatchObject({
      index: 0,
      type: "function",
      function: { name: "weather", arguments: "" },
    });
    const args = fragments.map((f) => f.function.arguments ?? "").join("");
    expect(JSON.parse(args)).toEqual({ city: "please use weather for Paris" });
    const result = await handle.done;
    expect(result.toolCalls).toHaveLength(1);
    expect(result.text).toContain('"forecast":"sunny"');
    const stored = await memory.load(user);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(stored[2]).toMatchObject({
      role: "tool",
      toolName: "weather",
      result: { city: "please use weather for Paris", forecast: "sunny" },
    });
  });

  it("turns invalid tool input into a tool error the model sees, not a crash", async () => {
    const memory = new WindowMemory();
    const agent = defineAgent({
      name: "a",
      model: {
        provider: "demo",
        script: [{ toolCalls: [{ name: "weather", arguments: { town: 3 } }] }, { text: "sorry" }],
      },
      tools: [weather],
    });
    const runs = new RunManager({ agent, memory });
    const result = await runs.start({ input: "x", ...user }).done;
    expect(result.status).toBe("completed");
    const tool = (await memory.load(user)).find((m) => m.role === "tool");
    expect(tool).toMatchObject({ isError: true });
    expect(String((tool as { result: unknown }).result)).toMatch(/Invalid input for tool "weather": city: /);
  });

  it("refuses a second start on a running thread with 409 thread_busy", async () => {
    const runs = new RunManager({
      agent: defineAgent({ name: "a", model: { provider: "demo", tokenDelayMs: 20 } }),
    });
    const handle = runs.start({ input: "one two three", threadId: "t1", ...user });
    expect(() => runs.start({ input: "again", threadId: "t1", ...user })).toThrow(
      expect.objectContaining({ code: "thread_busy", status: 409 }),
    );
    runs.cancel("t1", { userId: "alice" });
    await handle.done;
  });

  it("cancels mid-stream: the model stream stops, streamed text is kept and persisted", async () => {
    const memory = new WindowMemory();
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    const agent = defineAgent({
      name: "a",
      model: { provider: "demo", script: [{ text: long }], tokenDelayMs: 5 },
    });
    const runs = new RunManager({ agent, memory });
    const handle = runs.start({ input: "go", ...user });
    await firstContent(handle);
    expect(runs.cancel(handle.threadId, { userId: "mallory" })).toBe(false);
    expect(runs.cancel(handle.threadId, { userId: "alice" }, "stop")).toBe(true);
    const result = await handle.done;
    expect(result.status).toBe("cancelled");
    const streamed = contentOf(await collect(handle, 0));
    expect(streamed.length).toBeGreaterThan(0);
    expect(streamed.length).toBeLessThan(long.length);
    const stored = await memory.load(user);
    expect(stored[1]).toMatchObject({ role: "assistant", content: streamed });
  });

  it("cancels between tool calls: the next call never runs and gets a synthetic cancelled result", async () => {
    const memory = new WindowMemory();
    const ran: string[] = [];
    let runs!: RunManager;
    const step = defineTool({
      name: "step",
      description: "one step",
      input: v.object({ n: v.number() }),
      execute: ({ n }, ctx) => {
        ran.push(`step${n}`);
        if (n === 1) runs.cancel(ctx.threadId, { userId: ctx.userId });
        return `did ${n}`;
      },
    });
    const agent = defineAgent({
      name: "a",
      tools: [step],
      model: {
        provider: "demo",
        script: [
          {
            toolCalls: [
              { name: "step", arguments: { n: 1 } },
              { name: "step", arguments: { n: 2 } },
            ],
          },
          { text: "never" },
        ],
      },
    });
    runs = new RunManager({ agent, memory });
    const result = await runs.start({ input: "go", ...user }).done;
    expect(result.status).toBe("cancelled");
    expect(ran).toEqual(["step1"]);
    const stored = await memory.load(user);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
    expect(stored[2]).toMatchObject({ result: "did 1" });
    expect(stored[3]).toMatchObject({ isError: true, result: CANCELLED_RESULT });
    expect(stored.some((m) => m.role === "assistant" && m.content === "never")).toBe(false);
  });

  it("splices steer text into the same turn and answers it without a second turn", async () => {
    const memory = new WindowMemory();
    const agent = defineAgent({
      name: "a",
      model: {
        provider: "demo",
        tokenDelayMs: 5,
        script: [{ text: "first answer with several words in it" }, { text: "steered answer" }],
      },
    });
    const runs = new RunManager({ agent, memory });
    let persisted = 0;
    const handle = runs.start({ input: "start", ...user, onPersisted: () => void persisted++ });
    await firstContent(handle);
    expect(runs.steer(handle.threadId, "also this", { userId: "mallory" })).toBe(false);
    expect(runs.steer(handle.threadId, "also this", { userId: "alice" })).toBe(true);
    const result = await handle.done;
    expect(result.status).toBe("completed");
    expect(persisted).toBe(1);
    const stored = await memory.load(user);
    expect(stored).toEqual([
      { role: "user", content: "start" },
      { role: "assistant", content: "first answer with several words in it" },
      { role: "user", content: "also this" },
      { role: "assistant", content: "steered answer" },
    ]);
  });

  it("drain waits for running turns and then refuses new ones with 503", async () => {
    const runs = new RunManager({
      agent: defineAgent({ name: "a", model: { provider: "demo", tokenDelayMs: 2 } }),
    });
    const handle = runs.start({ input: "finish me", ...user });
    await runs.drain(10_000);
    expect(handle.status).toBe("completed");
    expect(() => runs.start({ input: "late", ...user })).toThrow(
      expect.objectContaining({ code: "shutting_down", status: 503 }),
    );
  });

  it("replays buffered events after a given seq while the run is retained", async () => {
    const runs = new RunManager({ agent: defineAgent({ name: "a", model: { provider: "demo" } }) });
    const handle = runs.start({ input: "replay me", ...user });
    const all = await collect(handle);
    const again = await collect(runs.get(handle.threadId)!, 3);
    expect(again).toEqual(all.slice(3));
  });

  it("keeps at most maxRetained finished runs replayable, dropping the oldest first", async () => {
    const runs = new RunManager({
      agent: defineAgent({ name: "a", model: { provider: "demo" } }),
      maxRetained: 2,
    });
    const threads: string[] = [];
    for (const input of ["one", "two", "three"]) {
      const handle = runs.start({ input, ...user, conversationId: input });
      await handle.done;
      threads.push(handle.threadId);
    }
    expect(runs.get(threads[0] as string)).toBeUndefined();
    expect(contentOf(await collect(runs.get(threads[2] as string)!, 0))).toContain('"three"');
    expect(runs.get(threads[1] as string)).toBeDefined();
  });

  it("forgets a finished run once retainMs has passed", async () => {
    const runs = new RunManager({
      agent: defineAgent({ name: "a", model: { provider: "demo" } }),
      retainMs: 20,
    });
    const handle = runs.start({ input: "short-lived", ...user });
    await handle.done;
    expect(runs.get(handle.threadId)).toBe(handle);
    await vi.waitFor(() => expect(runs.get(handle.threadId)).toBeUndefined(), {
      timeout: 2000,
      interval: 10,
    });
  });

  it("gives buffered events in batches: the same events in seq order, several per batch once the run is ahead", async () => {
    const runs = new RunManager({ agent: defineAgent({ name: "a", model: { provider: "demo" } }) });
    const handle = runs.start({ input: "batch me", ...user }) as RunHandle & {
      batches(after?: number): AsyncIterable<RunEvent[]>;
    };
    const all = await collect(handle);
    const batches: RunEvent[][] = [];
    for await (const batch of handle.batches()) batches.push(batch);
    // The run has ended, so everything it buffered comes as one batch.
    expect(batches).toHaveLength(1);
    expect(batches.flat()).toEqual(all);
    const later: RunEvent[] = [];
    for await (const batch of handle.batches(5)) later.push(...batch);
    expect(later).toEqual(all.slice(5));
  });
});

describe("approval suspension and resume", () => {
  const transfer = defineTool({
    name: "transfer",
    description: "Move money",
    input: v.object({ amount: v.number() }),
    needsApproval: true,
    execute: ({ amount }, ctx) => ({
      moved: amount,
      decidedBy: ctx.approval?.decidedBy,
      decision: ctx.approval?.decision,
    }),
  });
  const agent = defineAgent({
    name: "bank",
    tools: [transfer],
    model: {
      provider: "demo",
      script: [
        { text: "Let me do that.", toolCalls: [{ name: "transfer", arguments: { amount: 5 } }] },
        { text: "Finished." },
      ],
    },
  });

  async function suspendedRun() {
    const memory = new WindowMemory();
    const runStore = new InMemoryRunStore();
    const runs = new RunManager({ agent, memory, runStore });
    const handle = runs.start({ input: "send 5", threadId: "t-bank", ...user });
    const events = await collect(handle);
    const result = await handle.done;
    return { runs, memory, runStore, handle, events, result };
  }

  it("suspends with a middleware_stop chunk, saves owner and state, and persists nothing yet", async () => {
    const { runs, memory, runStore, events, result } = await suspendedRun();
    expect(result.status).toBe("suspended");
    const last = events.at(-1)!;
    expect(last.chunk.kind).toBe("middleware_stop");
    expect(last.chunk.choices[0].delta).toEqual({});
    const saved = await runStore.get("t-bank");
    expect(saved?.options).toMatchObject({ threadId: "t-bank", userId: "alice", conversationId: "c1" });
    expect(saved?.pendingCall).toMatchObject({ name: "transfer", arguments: { amount: 5 } });
    expect(await memory.count(user)).toBe(0);
    expect(await runs.pending("t-bank", { userId: "alice" })).toMatchObject({
      toolName: "transfer",
      arguments: { amount: 5 },
    });
    expect(await runs.pending("t-bank", { userId: "bob" })).toBeUndefined();
    expect(() => runs.start({ input: "next", threadId: "t-bank", ...user })).toThrow(
      expect.objectContaining({ code: "thread_busy" }),
    );
    expect(() => runs.start({ input: "next", ...user })).toThrow(
      expect.objectContaining({ code: "approval_pending", status: 409 }),
    );
  });

  it("approve runs the tool with decidedBy from the caller, never from the decision body", async () => {
    const { runs, memory, events } = await suspendedRun();
    const decision = { decision: "approve", decidedBy: "mallory" } as unknown as { decision: "approve" };
    const handle = await runs.resume("t-bank", decision, { userId: "alice" });
    const more = await collect(handle);
    expect(more[0]!.seq).toBe(events.at(-1)!.seq + 1);
    const result = await handle.done;
    expect(result.status).toBe("completed");
    expect(result.text).toBe("Let me do that.\n\nFinished.");
    const stored = await memory.load(user);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(stored[2]).toMatchObject({ result: { moved: 5, decidedBy: "alice", decision: "approve" } });
    // The stored result keeps the decision, so a transcript replays it where it happened.
    expect(stored[2]).toMatchObject({ decision: { decision: "approve", decidedBy: "alice" } });
    expect(await runs.pending("t-bank", { userId: "alice" })).toBeUndefined();
  });

  it("reject gives the model a rejected tool result with the reason", async () => {
    const { runs, memory } = await suspendedRun();
    const handle = await runs.resume(
      "t-bank",
      { decision: "reject", reason: "too much" },
      { userId: "alice" },
    );
    await handle.done;
    const tool = (await memory.load(user)).find((m) => m.role === "tool");
    expect(tool).toMatchObject({ isError: true, decision: { decision: "reject", decidedBy: "alice" } });
    expect(String((tool as { result: unknown }).result)).toBe(
      "Rejected: alice did not approve this tool call. Reason: too much",
    );
  });

  it("edit validates editedData against the tool schema and runs the tool with it", async () => {
    const { runs, memory } = await suspendedRun();
    await expect(
      runs.resume("t-bank", { decision: "edit", editedData: { amount: "lots" } }, { userId: "alice" }),
    ).rejects.toMatchObject({
      code: "invalid_edit",
      status: 400,
    });
    const handle = await runs.resume(
      "t-bank",
      { decision: "edit", editedData: { amount: 2 } },
      { userId: "alice" },
    );
    await handle.done;
    const tool = (await memory.load(user)).find((m) => m.role === "tool");
    expect(tool).toMatchObject({ result: { moved: 2, decision: "edit", decidedBy: "alice" } });
  });

  it("refuses resume by a non-owner with 403 and keeps the run suspended", async () => {
    const { runs } = await suspendedRun();
    const attempt = runs.resume("t-bank", { decision: "approve" }, { userId: "bob" });
    await expect(attempt).rejects.toBeInstanceOf(AgentsvcError);
    await expect(attempt).rejects.toMatchObject({ code: "forbidden", status: 403 });
    expect(await runs.pending("t-bank", { userId: "alice" })).toBeDefined();
    await expect(runs.resume("nope", { decision: "approve" }, { userId: "alice" })).rejects.toMatchObject({
      status: 404,
    });
    await expect(
      runs.resume("t-bank", { decision: "maybe" } as never, { userId: "alice" }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it("a new manager over the same run store knows the suspension and resumes it", async () => {
    const { runStore, memory } = await suspendedRun();
    const restarted = new RunManager({ agent, memory, runStore });
    await restarted.ready();
    expect(() => restarted.start({ input: "x", ...user })).toThrow(
      expect.objectContaining({ code: "approval_pending" }),
    );
    const handle = await restarted.resume("t-bank", { decision: "approve" }, { userId: "alice" });
    const events = await collect(handle);
    expect(events[0]!.seq).toBeGreaterThan(1);
    expect((await handle.done).status).toBe("completed");
  });

  it("cancelling a suspended run closes the turn with cancelled results", async () => {
    const { runs, memory } = await suspendedRun();
    expect(runs.cancel("t-bank", { userId: "bob" })).toBe(false);
    expect(runs.cancel("t-bank", { userId: "alice" })).toBe(true);
    await expect.poll(() => memory.count(user)).toBe(3);
    const stored: Message[] = await memory.load(user);
    expect(stored[2]).toMatchObject({ role: "tool", isError: true, result: CANCELLED_RESULT });
  });
});
