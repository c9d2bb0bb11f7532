// SQLite keeps recently used prompt windows in memory and reads only the rows appended since
// (prompt-cache.ts). What a turn sees must stay exactly what the file holds: after a clear or a
// summary, after another connection (another process) rewrote the scope, after a rollback, and
// while reads and writes of one conversation are in flight together.
import { type Message, summaryMessage } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import type { StoreContext } from "../src/context.js";
import type { SqliteMemory } from "../src/memory.js";
import { sql } from "../src/orm.js";
import { sqliteDriver, tempRoot } from "./helpers.js";

const A = { userId: "alice", conversationId: "shared" };
const say = (text: string): Message => ({ role: "user", content: text });
const texts = (messages: Message[]) => messages.map((m) => ("content" in m ? m.content : m.role));

/** A store whose memory holds one committed message, "kept", its window cached by a first prompt. */
async function keptOnly() {
  const db = await sqliteDriver.open();
  const memory = db.createMemory({ canSummarize: false });
  await memory.append(A, [say("kept")]);
  expect(texts(await memory.loadPrompt(A))).toEqual(["kept"]);
  return { db, memory };
}

/** The prompt holds the committed message only, and the next turn's message follows it. */
async function expectKeptThenNext(memory: SqliteMemory): Promise<void> {
  expect(texts(await memory.loadPrompt(A))).toEqual(["kept"]);
  await memory.append(A, [say("next")]);
  expect(texts(await memory.loadPrompt(A))).toEqual(["kept", "next"]);
}

describe("[sqlite] cached prompt window", () => {
  it("matches a fresh read of the file after every turn, with reads and appends in flight together", async () => {
    const root = tempRoot();
    const db = await sqliteDriver.open({ appRoot: root });
    const memory = db.createMemory({ canSummarize: false, maxMessages: 7 });
    for (let round = 0; round < 12; round++) {
      // Several turns of one conversation at once: their reads and appends share group commits.
      await Promise.all(
        Array.from({ length: 4 }, async (_, i) => {
          await memory.loadPrompt(A);
          await memory.append(A, [say(`q${round}.${i}`), { role: "assistant", content: `a${round}.${i}` }]);
        }),
      );
      const fresh = (await db.createMemory({ canSummarize: false, maxMessages: 7 }).load(A)).slice(-7);
      expect(texts(await memory.loadPrompt(A))).toEqual(texts(fresh));
    }
  });

  it("a window read just before a clear in the same batch is not used after it: the next prompt holds only what came after", async () => {
    const db = await sqliteDriver.open();
    const memory = db.createMemory({ canSummarize: false });
    await memory.append(A, [say("before")]);
    // Queued together: the read runs (and saves its window) before the clear.
    const read = memory.loadPrompt(A);
    const cleared = memory.clear(A);
    expect(texts(await read)).toEqual(["before"]);
    await cleared;
    await memory.append(A, [say("after")]);
    expect(texts(await memory.loadPrompt(A))).toEqual(["after"]);
  });

  it("after clear() the prompt holds none of the cleared messages, also for another memory of the store", async () => {
    const db = await sqliteDriver.open();
    const one = db.createMemory({ canSummarize: false });
    const two = db.createMemory({ canSummarize: false });
    await one.append(A, [say("old 1"), say("old 2")]);
    expect(texts(await one.loadPrompt(A))).toEqual(["old 1", "old 2"]);
    expect(texts(await two.loadPrompt(A))).toEqual(["old 1", "old 2"]);
    await two.clear(A);
    await two.append(A, [say("new")]);
    expect(texts(await one.loadPrompt(A))).toEqual(["new"]);
    expect(texts(await two.loadPrompt(A))).toEqual(["new"]);
  });

  it("after summarize() the prompt starts with the summary and drops what it replaced", async () => {
    const db = await sqliteDriver.open();
    const memory = db.createMemory({ canSummarize: true, summarize: async () => "the gist" });
    await memory.append(A, [say("m1"), say("m2"), say("m3"), say("m4")]);
    expect(texts(await memory.loadPrompt(A))).toEqual(["m1", "m2", "m3", "m4"]);
    await memory.summarize(A, { keepRecent: 1 });
    const prompt = await memory.loadPrompt(A);
    expect(prompt).toHaveLength(2);
    expect(prompt[0]?.role).toBe("system");
    expect(texts(prompt.slice(1))).toEqual(["m4"]);
  });

  it("a scope another connection (another process) cleared and rewrote is read again, not taken from the cache", async () => {
    const root = tempRoot();
    const here = (await sqliteDriver.open({ appRoot: root })).createMemory({ canSummarize: false });
    const elsewhere = (await sqliteDriver.open({ appRoot: root })).createMemory({ canSummarize: false });
    await here.append(A, [say("old")]);
    expect(texts(await here.loadPrompt(A))).toEqual(["old"]);
    await elsewhere.clear(A);
    await elsewhere.append(A, [say("new")]);
    expect(texts(await here.loadPrompt(A))).toEqual(["new"]);
  });

  it("rows read inside a transaction that then rolled back do not reach a later prompt", async () => {
    const { db, memory } = await keptOnly();
    await expect(
      db.transaction(async () => {
        await memory.append(A, [say("rolled back")]);
        expect(texts(await memory.loadPrompt(A))).toEqual(["kept", "rolled back"]);
        throw new Error("abort the turn");
      }),
    ).rejects.toThrow("abort the turn");
    await expectKeptThenNext(memory);
  });

  it("rows read from a batch whose physical transaction was then lost do not reach a later prompt", async () => {
    const { db, memory } = await keptOnly();
    const { ctx } = db as unknown as { ctx: StoreContext };
    // A transaction held open, so the read below queues instead of reading committed rows at once.
    let open!: () => void;
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => (opened = resolve));
    const held = db.transaction(
      () =>
        new Promise<void>((resolve) => {
          open = resolve;
          opened();
        }),
    );
    await isOpen;
    // The next batch: an append, a read that sees it (uncommitted), then SQLite drops the whole
    // transaction (as on an I/O error): the append and the read fail, and the append's id is free again.
    const lost = memory.append(A, [say("lost")]);
    const read = memory.loadPrompt(A);
    const drop = ctx.run(async (d) => d.run(sql`ROLLBACK`));
    open();
    await held;
    await expect(lost).rejects.toThrow();
    await expect(read).rejects.toThrow();
    await expect(drop).rejects.toThrow();
    await expectKeptThenNext(memory);
  });

  it("a prompt read while another caller's transaction is open waits for it: its rolled-back rows are never seen", async () => {
    const { db, memory } = await keptOnly();
    let fail!: () => void;
    let written!: () => void;
    const isWritten = new Promise<void>((resolve) => (written = resolve));
    const turn = db.transaction(async () => {
      await memory.append(A, [say("rolled back")]);
      written();
      await new Promise<void>((_, reject) => (fail = () => reject(new Error("turn failed"))));
    });
    await isWritten;
    // Called from outside that transaction while it waits with its append written, not committed.
    const read = memory.loadPrompt(A);
    fail();
    await expect(turn).rejects.toThrow("turn failed");
    expect(texts(await read)).toEqual(["kept"]);
    await expectKeptThenNext(memory);
  });

  it("an append whose within fails after its rows were written leaves them out of the next prompt", async () => {
    const { memory } = await keptOnly();
    await expect(
      memory.append(A, [say("rolled back")], () => {
        throw new Error("within failed");
      }),
    ).rejects.toThrow("within failed");
    await expectKeptThenNext(memory);
  });

  it("an append made inside a caller's transaction that committed is in the next prompt", async () => {
    const { db, memory } = await keptOnly();
    await db.transaction(async () => {
      await memory.append(A, [say("in a transaction")]);
    });
    expect(texts(await memory.loadPrompt(A))).toEqual(["kept", "in a transaction"]);
  });

  it("an append reaches the prompt of another memory of the store with a smaller window, cut to that window", async () => {
    const db = await sqliteDriver.open();
    const small = db.createMemory({ canSummarize: false, maxMessages: 2 });
    const large = db.createMemory({ canSummarize: false, maxMessages: 5 });
    await large.append(A, [say("1"), say("2"), say("3")]);
    expect(texts(await small.loadPrompt(A))).toEqual(["2", "3"]);
    await large.append(A, [say("4")]);
    expect(texts(await small.loadPrompt(A))).toEqual(["3", "4"]);
    expect(texts(await large.loadPrompt(A))).toEqual(["1", "2", "3", "4"]);
  });

  it("an empty conversation's first turns reach its next prompts", async () => {
    const db = await sqliteDriver.open();
    const memory = db.createMemory({ canSummarize: false, maxMessages: 3 });
    expect(await memory.loadPrompt(A)).toEqual([]);
    await memory.append(A, [say("first")]);
    expect(texts(await memory.loadPrompt(A))).toEqual(["first"]);
    await memory.append(A, [say("second"), say("third"), say("fourth")]);
    expect(texts(await memory.loadPrompt(A))).toEqual(["second", "third", "fourth"]);
  });

  it("a conversation whose first turn starts with a summary keeps it first once the window is full, as a fresh read does", async () => {
    const root = tempRoot();
    const memory = (await sqliteDriver.open({ appRoot: root })).createMemory({
      canSummarize: false,
      maxMessages: 2,
    });
    expect(await memory.loadPrompt(A)).toEqual([]);
    await memory.append(A, [summaryMessage("the gist"), say("m1"), say("m2")]);
    const fresh = (await sqliteDriver.open({ appRoot: root })).createMemory({
      canSummarize: false,
      maxMessages: 2,
    });
    const expected = await fresh.loadPrompt(A);
    expect(expected.map((m) => m.role)).toEqual(["system", "user", "user"]);
    expect(await memory.loadPrompt(A)).toEqual(expected);
  });

  it("changing the messages a prompt returned does not change the next prompt", async () => {
    const db = await sqliteDriver.open();
    const memory = db.createMemory({ canSummarize: false });
    await memory.append(A, [say("original")]);
    const first = await memory.loadPrompt(A);
    (first[0] as { content: string }).content = "changed by the caller";
    expect(texts(await memory.loadPrompt(A))).toEqual(["original"]);
  });
});
