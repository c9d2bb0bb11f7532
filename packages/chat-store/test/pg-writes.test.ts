// The PostgreSQL statements written as SQL text (pg-writes.ts) instead of built by drizzle: the
// records they read are the ones drizzle's reads return (bigint columns as numbers, camelCase
// names), and one text serves any number of rows, so each is a named statement prepared once.
import type { AttachmentRef, RunOrigin } from "@agentsvc/agent-core";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { withClauses } from "../src/pg-writes.js";
import { postgresDriver } from "./helpers.js";
import { statementsOf } from "./pg-statements.js";

const origin: RunOrigin = { gateway: "g", thread: "t", meta: { n: 1 } };

describe("statements composed of WITH clauses", () => {
  it("number each part's placeholders after the parts before it, and hand out one text per sequence of texts", () => {
    const a = { text: "INSERT INTO a VALUES ($1, $2)", params: ["a1", "a2"] };
    const b = { text: "INSERT INTO b VALUES ($1)", params: ["b1"] };
    const ended = { text: "UPDATE c SET x = $1 WHERE id = $2 RETURNING id", params: ["x", 7] };
    const main = { text: "SELECT $1::int + count(*) AS n FROM ended", params: [3] };
    const once = withClauses([a, b], ended, main);
    expect(once).toEqual({
      text:
        "WITH carried_0 AS (INSERT INTO a VALUES ($1, $2)), carried_1 AS (INSERT INTO b VALUES ($3)), " +
        "ended AS (UPDATE c SET x = $4 WHERE id = $5 RETURNING id) SELECT $6::int + count(*) AS n FROM ended",
      params: ["a1", "a2", "b1", "x", 7, 3],
    });
    const again = withClauses(
      [
        { ...a, params: ["p", "q"] },
        { ...b, params: ["r"] },
      ],
      ended,
      main,
    );
    expect(again.text).toBe(once.text);
    expect(again.params).toEqual(["p", "q", "r", "x", 7, 3]);
    // Another shape: the last part as the main statement, no `ended`.
    expect(withClauses([a], undefined, b)).toEqual({
      text: "WITH carried_0 AS (INSERT INTO a VALUES ($1, $2)) INSERT INTO b VALUES ($3)",
      params: ["a1", "a2", "b1"],
    });
    expect(withClauses([], undefined, b)).toBe(b);
  });
});

describe.skipIf(postgresMissing)("[postgres] statements written as SQL text", () => {
  it("a thread's queued and unfinished records read in shared statements are the records get() reads, numbers as numbers", async () => {
    const db = await postgresDriver.open();
    const attachments: AttachmentRef[] = [
      { blob: "ab".repeat(32), kind: "image", contentType: "image/png", size: 3, name: "a.png" },
    ];
    const first = await db.inbox.accept({ gateway: "g", dedupKey: "1", thread: "t", text: "one", origin });
    const second = await db.inbox.accept({
      gateway: "g",
      dedupKey: "2",
      thread: "t",
      text: "two",
      origin,
      attachments,
    });
    const ids = [first, second].map((r) => (r as { id: number }).id);
    await db.inbox.markRunning(ids[0]!);
    const expected = await Promise.all(ids.map((id) => db.inbox.get(id)));
    expect(typeof expected[0]?.startedAt).toBe("number");
    const [queued, unfinished] = await Promise.all([
      db.inbox.queued("g", "t"),
      db.inbox.unfinishedOf("g", "t"),
    ]);
    expect(queued).toEqual([expected[1]]);
    expect(unfinished).toEqual(expected);
    expect(unfinished[1]?.attachments).toEqual(attachments);
  });

  it("the due outbox rows are the rows get() reads, numbers as numbers", async () => {
    const db = await postgresDriver.open();
    const [id] = await db.outbox.enqueue([
      { gateway: "g", thread: "t", idemKey: "k", kind: "text", payload: { text: "a" }, notBefore: 5 },
    ]);
    await db.outbox.markRetry(id!, 10, "busy");
    const due = await db.outbox.due(Date.now());
    expect(due).toEqual([await db.outbox.get(id!)]);
    expect(due[0]).toMatchObject({ attempts: 1, nextAttemptAt: 10, lastError: "busy", finishedAt: null });
  });

  it("turns of any size end with one statement text, fenced or not: each is prepared once per connection", async () => {
    const db = await postgresDriver.open();
    const memory = db.createMemory({ canSummarize: false });
    const ends: string[] = [];
    for (const size of [1, 2, 3]) {
      const accepted = await db.inbox.accept({
        gateway: "g",
        dedupKey: `m${size}`,
        thread: `t${size}`,
        text: "q",
        origin,
      });
      const id = (accepted as { id: number }).id;
      const turn = Array.from({ length: size + 1 }, (_, i) => ({ role: "user" as const, content: `c${i}` }));
      const reply = Array.from({ length: size }, (_, i) => ({
        gateway: "g",
        thread: `t${size}`,
        idemKey: `g:${id}:${i}`,
        kind: "text" as const,
        payload: { text: `r${i}` },
      }));
      const sent = await statementsOf(() =>
        memory.append({ userId: "u", conversationId: `c${size}` }, turn, async () => {
          await db.inbox.finish(id, "done", reply, { last: true });
        }),
      );
      expect(sent.map((s) => s.text.split(" ")[0])).toEqual(["WITH"]);
      ends.push(sent[0]!.text);
      expect(await memory.load({ userId: "u", conversationId: `c${size}` })).toEqual(turn);
      const pieces = await db.outbox.browse({ statuses: ["pending"] });
      expect(pieces.filter((p) => p.thread === `t${size}`).map((p) => p.payload)).toEqual(
        reply.map((r) => r.payload),
      );
    }
    expect(new Set(ends).size).toBe(1);
  });

  it("ledger rows recorded together or alone share one insert text", async () => {
    const db = await postgresDriver.open();
    const entry = (i: number) => ({
      at: 1_000 + i,
      userId: `u${i}`,
      gateway: i % 2 ? null : "g",
      agent: "a",
      conversationId: "c",
      provider: "p",
      model: "m",
      kind: "turn" as const,
      outcome: "ok",
      inputTokens: i,
      outputTokens: 2 * i,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 3 * i,
      reasoningTokens: 1,
      costNanos: 10 * i,
    });
    const sent = await statementsOf(async () => {
      await db.usageLedger.record(entry(1));
      await db.usageLedger.record([entry(2), entry(3), entry(4)]);
      await db.transaction(() => db.usageLedger.record([entry(5), entry(6)]));
    });
    const inserts = sent.filter((s) => /^insert into "usage_ledger"/i.test(s.text));
    expect(inserts.length).toBe(3);
    expect(new Set(inserts.map((s) => s.text)).size).toBe(1);
    expect(await db.usageLedger.totals({ since: 0 })).toEqual({
      calls: 6,
      inputTokens: 21,
      outputTokens: 42,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 63,
      reasoningTokens: 6,
      costNanos: 210,
    });
    expect(await db.usageLedger.totals({ since: 0, gateway: "g" })).toMatchObject({
      calls: 3,
      inputTokens: 12,
    });
  });
});
