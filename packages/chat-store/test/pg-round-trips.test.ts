// Round trips of the gateway hot paths on PostgreSQL, counted with a wrapper on the pg client the
// store's pool uses (one statement = one round trip: node-postgres sends the next statement only
// after the server answered the previous one). Every statement costs a socket write and a wake-up
// on both sides, which on a busy machine is most of what a message costs.
import type { RunOrigin } from "@agentsvc/agent-core";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import { postgresDriver } from "./helpers.js";
import { type Statement, statementsOf, withOwnConnection } from "./pg-statements.js";

const origin: RunOrigin = { gateway: "g", thread: "t", meta: {} };

/** `n` text pieces, each on a thread of its own; their row ids in order. */
const enqueuePieces = (db: ChatDb, n: number) =>
  db.outbox.enqueue(
    Array.from({ length: n }, (_, i) => ({
      gateway: "g",
      thread: `t${i}`,
      idemKey: `piece-${i}`,
      kind: "text" as const,
      payload: { text: `p${i}` },
    })),
  );

const verbs = (sent: Statement[]) =>
  sent.map((s) => s.text.trim().replace(/^\(/, "").split(/\s+/)[0]!.toLowerCase());

describe.skipIf(postgresMissing)("[postgres] round trips of the hot paths", () => {
  it("concurrent inbox accepts share statements; each caller gets its own id or duplicate, committed when answered", async () => {
    await withOwnConnection(async (db, reader) => {
      await db.inbox.accept({ gateway: "g", dedupKey: "seen", thread: "t0", text: "old", origin });
      const keys = Array.from({ length: 60 }, (_, i) => `k${i}`);
      // Two callers with one key in the same burst, and one key stored before it.
      const inputs = [...keys, "k7", "seen"].map((dedupKey, i) => ({
        gateway: "g",
        dedupKey,
        thread: `t${i % 5}`,
        text: `m${i}`,
        origin,
      }));
      const visible: boolean[] = [];
      let results: Awaited<ReturnType<typeof db.inbox.accept>>[] = [];
      const sent = await statementsOf(async () => {
        results = await Promise.all(
          inputs.map(async (input) => {
            const result = await db.inbox.accept(input);
            if (result.accepted) {
              // Answered: another connection already sees the row (its statement has committed).
              const { rows } = await reader.query("SELECT 1 FROM inbox WHERE id = $1", [result.id]);
              visible.push(rows.length === 1);
            }
            return result;
          }),
        );
      });
      const inserts = sent.filter((s) => /^\s*insert into "inbox"/i.test(s.text));
      expect(inserts.length).toBeLessThan(inputs.length / 4);
      expect(results.slice(0, 60).every((r) => r.accepted)).toBe(true);
      expect(results.slice(60)).toEqual([
        { accepted: false, duplicate: true },
        { accepted: false, duplicate: true },
      ]);
      expect(visible).toEqual(keys.map(() => true));
      const ids = results.slice(0, 60).map((r) => (r as { id: number }).id);
      expect(new Set(ids).size).toBe(60);
      for (const [i, id] of ids.entries()) expect((await db.inbox.get(id))?.text).toBe(`m${i}`);
    });
  }, 60_000);

  it("a row the database refuses in a shared statement fails only its own accept", async () => {
    const db = await postgresDriver.open();
    const inputs = Array.from({ length: 20 }, (_, i) => ({
      gateway: "g",
      dedupKey: `k${i}`,
      thread: "t",
      // PostgreSQL text cannot hold NUL: the server refuses the row, not the driver.
      text: i === 9 ? "bad \u0000 byte" : `m${i}`,
      origin,
    }));
    const results = await Promise.allSettled(inputs.map((input) => db.inbox.accept(input)));
    expect(results.map((r) => r.status)).toEqual(inputs.map((_, i) => (i === 9 ? "rejected" : "fulfilled")));
    for (const [i, r] of results.entries()) {
      if (r.status !== "fulfilled") continue;
      expect((await db.inbox.get((r.value as { id: number }).id))?.text).toBe(`m${i}`);
    }
    expect(await db.inbox.countQueued("g", "t")).toBe(19);
  }, 60_000);

  it("an accept inside a transaction is part of it (rolled back with it)", async () => {
    const db = await postgresDriver.open();
    await expect(
      db.transaction(async () => {
        await db.inbox.accept({ gateway: "g", dedupKey: "in-tx", thread: "t", text: "x", origin });
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect(await db.inbox.countQueued("g", "t")).toBe(0);
  });

  it("turns started at once mark their records running with shared statements; each caller learns if it moved its own", async () => {
    const db = await postgresDriver.open();
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await db.inbox.accept({
        gateway: "g",
        dedupKey: `r${i}`,
        thread: `t${i}`,
        text: "x",
        origin,
      });
      ids.push((r as { id: number }).id);
    }
    await db.inbox.markDone(ids[19]!, "done");
    let moved: boolean[] = [];
    const sent = await statementsOf(async () => {
      moved = await Promise.all([
        ...ids.map((id) => db.inbox.markRunning(id)),
        db.inbox.markRunning(ids[0]!),
      ]);
    });
    const updates = sent.filter((s) => /^\s*update "inbox"/i.test(s.text));
    expect(updates.length).toBeLessThan(6);
    // One text for any number of records: prepared once per connection (named-statements.ts).
    expect(new Set(updates.map((s) => s.text)).size).toBe(1);
    // The finished record and the second mark of the same record did not move.
    expect(moved).toEqual([...ids.slice(0, 19).map(() => true), false, false]);
    for (const id of ids.slice(0, 19)) expect((await db.inbox.get(id))?.status).toBe("running");
    expect((await db.inbox.get(ids[19]!))?.status).toBe("done");
  }, 60_000);

  it("threads' queued records read at once share statements; each caller gets its own thread's, oldest first", async () => {
    const db = await postgresDriver.open();
    for (let i = 0; i < 30; i++)
      await db.inbox.accept({ gateway: "g", dedupKey: `q${i}`, thread: `t${i % 10}`, text: `m${i}`, origin });
    const other = await db.inbox.accept({ gateway: "h", dedupKey: "q0", thread: "t0", text: "h", origin });
    await db.inbox.markRunning((other as { id: number }).id);
    let read: Awaited<ReturnType<typeof db.inbox.queued>>[] = [];
    const sent = await statementsOf(async () => {
      read = await Promise.all(Array.from({ length: 10 }, (_, t) => db.inbox.queued("g", `t${t}`)));
    });
    const reads = sent.filter((s) => /^\s*select/i.test(s.text));
    expect(reads.length).toBeLessThan(5);
    expect(new Set(reads.map((s) => s.text)).size).toBe(1);
    for (const [t, records] of read.entries())
      expect(records.map((r) => r.text)).toEqual([`m${t}`, `m${t + 10}`, `m${t + 20}`]);
    expect(await db.inbox.queued("h", "t0")).toEqual([]);
  }, 60_000);

  it("two gateways' threads of the same name read in one shared statement each get only their own gateway's records", async () => {
    const db = await postgresDriver.open();
    await db.inbox.accept({ gateway: "g", dedupKey: "same1", thread: "same", text: "from g", origin });
    await db.inbox.accept({ gateway: "h", dedupKey: "same1", thread: "same", text: "from h", origin });
    const [g, h] = await Promise.all([db.inbox.queued("g", "same"), db.inbox.queued("h", "same")]);
    expect(g?.map((r) => r.text)).toEqual(["from g"]);
    expect(h?.map((r) => r.text)).toEqual(["from h"]);
    const [gu, hu] = await Promise.all([
      db.inbox.unfinishedOf("g", "same"),
      db.inbox.unfinishedOf("h", "same"),
    ]);
    expect(gu?.map((r) => r.gateway)).toEqual(["g"]);
    expect(hu?.map((r) => r.gateway)).toEqual(["h"]);
  }, 60_000);

  it("one thread read by two callers in one shared statement: each gets the thread's records, oldest first, in a list of its own", async () => {
    const db = await postgresDriver.open();
    for (let i = 0; i < 3; i++)
      await db.inbox.accept({ gateway: "g", dedupKey: `twice${i}`, thread: "twice", text: `m${i}`, origin });
    let read: Awaited<ReturnType<typeof db.inbox.queued>>[] = [];
    const sent = await statementsOf(async () => {
      read = await Promise.all([db.inbox.queued("g", "twice"), db.inbox.queued("g", "twice")]);
    });
    expect(sent.filter((s) => /^\s*select/i.test(s.text))).toHaveLength(1);
    const [first, second] = read;
    expect(first?.map((r) => r.text)).toEqual(["m0", "m1", "m2"]);
    expect(second?.map((r) => r.text)).toEqual(["m0", "m1", "m2"]);
    // A caller taking records off its list (a take moves them into its queue) leaves the other's whole.
    first?.shift();
    expect(second).toHaveLength(3);
  }, 60_000);

  it("threads taken at once read their unfinished records with shared SELECT ... FOR UPDATE statements; a record a transaction is finishing comes back only once it committed", async () => {
    await withOwnConnection(async (db, other) => {
      const ids: number[] = [];
      for (let i = 0; i < 15; i++) {
        const r = await db.inbox.accept({
          gateway: "g",
          dedupKey: `u${i}`,
          thread: `t${i % 5}`,
          text: `m${i}`,
          origin,
        });
        ids.push((r as { id: number }).id);
      }
      await db.inbox.markRunning(ids[1]!);
      await db.inbox.markDone(ids[6]!, "done");
      // Another instance's turn of t0 is committing: its record is locked until it ends.
      await other.query("BEGIN");
      await other.query("UPDATE inbox SET status = 'done' WHERE id = $1", [ids[0]]);
      let read: Awaited<ReturnType<typeof db.inbox.unfinishedOf>>[] = [];
      const sent = await statementsOf(async () => {
        const reading = Promise.all(Array.from({ length: 5 }, (_, t) => db.inbox.unfinishedOf("g", `t${t}`)));
        await new Promise((r) => setTimeout(r, 300));
        await other.query("COMMIT");
        read = await reading;
      });
      const reads = sent.filter((s) => /^\s*select/i.test(s.text));
      expect(reads.length).toBeLessThan(4);
      expect(reads.every((s) => /for update/i.test(s.text))).toBe(true);
      expect(read.map((records) => records.map((r) => r.text))).toEqual([
        ["m5", "m10"], // m0 finished by the other transaction
        ["m1", "m11"], // m6 done before
        ["m2", "m7", "m12"],
        ["m3", "m8", "m13"],
        ["m4", "m9", "m14"],
      ]);
      expect(read[1]!.map((r) => r.status)).toEqual(["running", "queued"]);
    });
  }, 60_000);

  it("unfinishedOf is one statement (a lone SELECT ... FOR UPDATE)", async () => {
    const db = await postgresDriver.open();
    await db.inbox.accept({ gateway: "g", dedupKey: "a", thread: "t", text: "a", origin });
    const sent = await statementsOf(() => db.inbox.unfinishedOf("g", "t"));
    expect(verbs(sent)).toEqual(["select"]);
    expect(sent[0]!.text).toMatch(/for update/i);
  });

  it("a turn's prompt window is read with one statement, summary first and the recent rows in order", async () => {
    const db = await postgresDriver.open();
    const memory = db.createMemory({
      canSummarize: true,
      summarize: async () => "earlier talk",
      maxMessages: 3,
    });
    const scope = { userId: "u", conversationId: "c" };
    for (let i = 0; i < 6; i++) await memory.append(scope, [{ role: "user", content: `m${i}` }]);
    await memory.summarize(scope, { keepRecent: 4 });
    const expected = await memory.load(scope);
    let prompt: Awaited<ReturnType<typeof memory.loadPrompt>> = [];
    const sent = await statementsOf(async () => {
      prompt = await memory.loadPrompt(scope);
    });
    expect(verbs(sent)).toEqual(["select"]);
    expect(prompt).toEqual([expected[0], ...expected.slice(-3)]);
    // A scope shorter than the window: its first row is read once, as history.
    const short = { userId: "u", conversationId: "short" };
    await memory.append(short, [{ role: "user", content: "only" }]);
    expect(await memory.loadPrompt(short)).toEqual([{ role: "user", content: "only" }]);
  });

  it("turns starting at once read their prompt windows with shared statements, each its own scope's summary and recent rows", async () => {
    const db = await postgresDriver.open();
    const memory = db.createMemory({ canSummarize: true, summarize: async () => "earlier", maxMessages: 3 });
    const scopes = Array.from({ length: 12 }, (_, i) => ({ userId: `u${i % 3}`, conversationId: `c${i}` }));
    for (const [i, scope] of scopes.entries())
      for (let k = 0; k < (i % 5) + 1; k++)
        await memory.append(scope, [{ role: "user", content: `${i}:${k}` }]);
    await memory.summarize(scopes[4]!, { keepRecent: 2 }); // 5 rows: a summary and the last 2
    const alone: Awaited<ReturnType<typeof memory.loadPrompt>>[] = [];
    // Inside a transaction each is read alone, by the single-scope statement.
    await db.transaction(async () => {
      for (const scope of scopes) alone.push(await memory.loadPrompt(scope));
    });
    let together: typeof alone = [];
    const sent = await statementsOf(async () => {
      together = await Promise.all(scopes.map((scope) => memory.loadPrompt(scope)));
    });
    expect(sent.length).toBeLessThan(5);
    expect(new Set(sent.map((s) => s.text)).size).toBe(1);
    expect(together).toEqual(alone);
    expect(together[4]![0]).toMatchObject({ role: "system" });
    expect(together[3]!.map((m) => (m as { content: string }).content)).toEqual(["3:1", "3:2", "3:3"]);
    expect(together[0]!.map((m) => (m as { content: string }).content)).toEqual(["0:0"]);
  }, 60_000);

  it("a turn's messages are appended with one insert, in order", async () => {
    const db = await postgresDriver.open();
    const memory = db.createMemory({ canSummarize: false });
    const scope = { userId: "u", conversationId: "c" };
    const turn = [
      { role: "user" as const, content: "q" },
      { role: "assistant" as const, content: "", toolCalls: [{ id: "c1", name: "clock", arguments: {} }] },
      { role: "tool" as const, toolCallId: "c1", toolName: "clock", result: 1, isError: false },
      { role: "assistant" as const, content: "a" },
    ];
    const sent = await statementsOf(() => memory.append(scope, turn));
    // Its writes all carried: the transaction is that one statement (no BEGIN, no COMMIT).
    expect(verbs(sent)).toEqual(["insert"]);
    expect(await memory.load(scope)).toEqual(turn);
  });

  it("a turn's end is one statement between BEGIN and COMMIT: its messages, its record done and its reply of several pieces", async () => {
    const db = await postgresDriver.open();
    const memory = db.createMemory({ canSummarize: false });
    const scope = { userId: "u", conversationId: "c" };
    const accepted = await db.inbox.accept({ gateway: "g", dedupKey: "m", thread: "t", text: "q", origin });
    const id = (accepted as { id: number }).id;
    const turn = [
      { role: "user" as const, content: "q" },
      { role: "assistant" as const, content: "a" },
    ];
    const pieces = ["one", "two", "three"].map((text, i) => ({
      gateway: "g",
      thread: "t",
      idemKey: `g:in${id}:${i}`,
      kind: "text" as const,
      payload: { text },
    }));
    const sent = await statementsOf(() =>
      memory.append(scope, turn, async () => {
        await db.inbox.finish(id, "done", pieces);
      }),
    );
    expect(verbs(sent)).toEqual(["begin", "with", "commit"]);
    expect(await memory.load(scope)).toEqual(turn);
    expect((await db.inbox.get(id))?.status).toBe("done");
    const rows = await db.outbox.browse({ statuses: ["pending"] });
    expect(rows.map((r) => r.payload)).toEqual([{ text: "one" }, { text: "two" }, { text: "three" }]);
    // In order: each row id above the one before (the sender sends a thread's pieces by id).
    expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort((a, b) => a - b));
    // The thread's head is its first piece: the sender sends them one after the other.
    expect((await db.outbox.due(Date.now() + 1000)).map((r) => r.payload)).toEqual([{ text: "one" }]);
    expect(await db.outbox.markSent(rows[0]!.id)).toBe(true);
    expect((await db.outbox.due(Date.now() + 1000)).map((r) => r.payload)).toEqual([{ text: "two" }]);
  });

  it("a reply of several pieces is queued with one insert, its new ids in order", async () => {
    const db = await postgresDriver.open();
    await enqueuePieces(db, 1);
    let ids: number[] = [];
    const sent = await statementsOf(async () => {
      ids = await enqueuePieces(db, 4); // piece-0 is there already: skipped
    });
    expect(verbs(sent)).toEqual(["insert"]);
    expect(ids).toHaveLength(3);
    const rows = await Promise.all(ids.map((i) => db.outbox.get(i)));
    expect(rows.map((r) => r?.idemKey)).toEqual(["piece-1", "piece-2", "piece-3"]);
  });

  it("model calls recorded in the cost ledger at once share inserts; each caller is answered once its row is written", async () => {
    const db = await postgresDriver.open();
    const call = (i: number) => ({
      at: Date.now(),
      userId: `u${i}`,
      gateway: "g",
      agent: "a",
      conversationId: `c${i}`,
      provider: "demo",
      model: "m",
      kind: "turn" as const,
      outcome: "ok",
      inputTokens: i,
      outputTokens: 1,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      costNanos: 0,
    });
    const sent = await statementsOf(() =>
      Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          await db.usageLedger.record(call(i));
          // Answered: the row is in the sums.
          expect((await db.usageLedger.totals({ since: 0, userId: `u${i}` })).calls).toBe(1);
        }),
      ),
    );
    expect(sent.filter((s) => /^\s*insert into "usage_ledger"/i.test(s.text)).length).toBeLessThan(10);
    expect((await db.usageLedger.totals({ since: 0 })).inputTokens).toBe((29 * 30) / 2);
  }, 60_000);

  it("pieces marked sent together share statements; each caller learns if it moved its own row, with its own platform id", async () => {
    const db = await postgresDriver.open();
    const ids = await enqueuePieces(db, 12);
    expect(await db.outbox.markSent(ids[11]!, "early")).toBe(true);
    let results: boolean[] = [];
    const sent = await statementsOf(async () => {
      results = await Promise.all([
        ...ids.slice(0, 10).map((id, i) => db.outbox.markSent(id, i === 3 ? undefined : `m${i}`)),
        db.outbox.markSent(ids[0]!, "again"), // the same piece twice in one burst
        db.outbox.markSent(ids[11]!, "late"), // sent already
      ]);
    });
    const updates = sent.filter((s) => /^\s*update "outbox"/i.test(s.text));
    expect(updates.length).toBeLessThan(6);
    expect(results).toEqual([...ids.slice(0, 10).map(() => true), false, false]);
    for (const [i, id] of ids.slice(0, 10).entries()) {
      const row = await db.outbox.get(id);
      expect(row).toMatchObject({ status: "sent", attempts: 1, platformId: i === 3 ? null : `m${i}` });
      expect(row?.finishedAt).not.toBeNull();
    }
    expect(await db.outbox.get(ids[10]!)).toMatchObject({ status: "pending", attempts: 0, platformId: null });
    expect(await db.outbox.get(ids[11]!)).toMatchObject({ status: "sent", attempts: 1, platformId: "early" });
  }, 60_000);

  it("pieces marked sent together without platform ids are all marked", async () => {
    const db = await postgresDriver.open();
    const ids = await enqueuePieces(db, 5);
    expect(await Promise.all(ids.map((id) => db.outbox.markSent(id)))).toEqual(ids.map(() => true));
    for (const id of ids) expect(await db.outbox.get(id)).toMatchObject({ status: "sent", platformId: null });
  }, 60_000);
});
