import { AgentsvcError } from "@agentsvc/agent-core";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { normalizeTitle } from "../src/index.js";
import { clock, eachDriver } from "./helpers.js";

eachDriver((driver) => {
  async function expectAgentsvcError(fn: () => unknown, code: string, status: number): Promise<void> {
    try {
      await fn();
    } catch (err) {
      expect(err).toBeInstanceOf(AgentsvcError);
      expect((err as AgentsvcError).code).toBe(code);
      expect((err as AgentsvcError).status).toBe(status);
      return;
    }
    throw new Error(`expected AgentsvcError ${code}`);
  }

  describe("conversation rows (spec §3)", () => {
    it("absent -> turn: row created with updatedAt, title from the first user message, messageCount 2", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      const row = await db.conversations.recordTurn({
        userId: "alice",
        conversationId: "c1",
        userMessage: "Plan my trip",
      });
      expect(row).toEqual({
        conversationId: "c1",
        userId: "alice",
        title: "Plan my trip",
        messageCount: 2,
        createdAt: t.now(),
        updatedAt: t.now(),
      });
      expect(await db.conversations.get("c1")).toEqual(row);
    });

    it("the derived title is collapsed to one line and cut to 60 characters", async () => {
      const db = await driver.open();
      const long = `  First line\n\n\tsecond   line ${"x".repeat(100)}`;
      const row = await db.conversations.recordTurn({ userId: "u", conversationId: "c", userMessage: long });
      expect(row.title).toBe(`First line second line ${"x".repeat(37)}`);
      expect(row.title).toHaveLength(60);
      expect(row.title).not.toMatch(/\n/);
      // Characters, not UTF-16 units: an emoji is never split in half.
      expect(normalizeTitle("🙂".repeat(70))).toBe("🙂".repeat(60));
      expect(normalizeTitle(" \n\t ")).toBeUndefined();
    });

    it("a later turn moves updatedAt, adds 2 to messageCount and keeps the first title", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      await db.conversations.recordTurn({ userId: "u", conversationId: "c", userMessage: "first" });
      t.advance(5000);
      const row = await db.conversations.recordTurn({
        userId: "u",
        conversationId: "c",
        userMessage: "second",
      });
      expect(row).toMatchObject({ title: "first", messageCount: 4, updatedAt: t.now() });
      expect(row.createdAt).toBe(t.now() - 5000);
      const batch = await db.conversations.recordTurn({
        userId: "u",
        conversationId: "c",
        userMessage: "x",
        turns: 3,
      });
      expect(batch.messageCount).toBe(10);
    });

    it("a blank first message leaves the title empty until a turn provides one", async () => {
      const db = await driver.open();
      expect(
        (await db.conversations.recordTurn({ userId: "u", conversationId: "c", userMessage: "   " })).title,
      ).toBeNull();
      expect(
        (await db.conversations.recordTurn({ userId: "u", conversationId: "c", userMessage: "now" })).title,
      ).toBe("now");
    });

    it("absent -> create: a conversationId is minted and the optional title stored", async () => {
      const db = await driver.open();
      const a = await db.conversations.create({ userId: "u", title: "Named\nchat" });
      const b = await db.conversations.create({ userId: "u" });
      expect(a.conversationId).toMatch(/^[0-9a-f-]{36}$/);
      expect(b.conversationId).not.toBe(a.conversationId);
      expect(a).toMatchObject({ title: "Named chat", messageCount: 0, userId: "u" });
      expect(b.title).toBeNull();
      // A created title is not replaced by the first turn.
      expect(
        (
          await db.conversations.recordTurn({
            userId: "u",
            conversationId: a.conversationId,
            userMessage: "hi",
          })
        ).title,
      ).toBe("Named chat");
    });

    it("create refuses an id that already exists (409 for the owner, 403 for anyone else)", async () => {
      const db = await driver.open();
      await db.conversations.create({ userId: "alice", conversationId: "taken" });
      await expectAgentsvcError(
        () => db.conversations.create({ userId: "alice", conversationId: "taken" }),
        "conflict",
        409,
      );
      await expectAgentsvcError(
        () => db.conversations.create({ userId: "bob", conversationId: "taken" }),
        "forbidden",
        403,
      );
    });

    it("exists, owned by another user -> turn: refused with 403 and the owner is not overwritten", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      await db.conversations.recordTurn({
        userId: "alice",
        conversationId: "shared-id",
        userMessage: "mine",
      });
      t.advance(1000);
      await expectAgentsvcError(
        () =>
          db.conversations.recordTurn({ userId: "bob", conversationId: "shared-id", userMessage: "take" }),
        "forbidden",
        403,
      );
      await expectAgentsvcError(() => db.conversations.assertCanUse("bob", "shared-id"), "forbidden", 403);
      expect(await db.conversations.get("shared-id")).toMatchObject({
        userId: "alice",
        title: "mine",
        messageCount: 2,
      });
      expect((await db.conversations.get("shared-id"))!.updatedAt).toBe(t.now() - 1000);
      expect(await db.conversations.list("bob")).toEqual([]);
    });

    it("assertCanUse answers before a turn: the owner's row, or undefined for an unused id", async () => {
      const db = await driver.open();
      expect(await db.conversations.assertCanUse("alice", "new")).toBeUndefined();
      await db.conversations.create({ userId: "alice", conversationId: "mine" });
      expect((await db.conversations.assertCanUse("alice", "mine"))?.userId).toBe("alice");
    });

    it("exists -> rename (own): the title is replaced and never overwritten by later turns", async () => {
      const db = await driver.open();
      await db.conversations.recordTurn({ userId: "u", conversationId: "c", userMessage: "auto title" });
      expect((await db.conversations.rename("u", "c", "  My   name ")).title).toBe("My name");
      await db.conversations.recordTurn({ userId: "u", conversationId: "c", userMessage: "another" });
      expect((await db.conversations.get("c"))!.title).toBe("My name");
    });

    it("rename refuses another user's conversation (403), an unknown one (404) and an empty title (400)", async () => {
      const db = await driver.open();
      await db.conversations.create({ userId: "alice", conversationId: "c" });
      await expectAgentsvcError(() => db.conversations.rename("bob", "c", "x"), "forbidden", 403);
      await expectAgentsvcError(() => db.conversations.rename("alice", "missing", "x"), "not_found", 404);
      await expectAgentsvcError(() => db.conversations.rename("alice", "c", " \n "), "invalid_title", 400);
      expect((await db.conversations.get("c"))!.title).toBeNull();
    });

    it("exists -> delete (own): the index row and (through memory.clear) its messages are gone", async () => {
      const db = await driver.open();
      const memory = db.createMemory({ canSummarize: false });
      const scope = { userId: "u", conversationId: "c" };
      await db.conversations.recordTurn({ ...scope, userMessage: "hi" });
      await memory.append(scope, [
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
      ]);
      expect(await db.conversations.delete("u", "c")).toBe(true);
      await memory.clear(scope);
      expect(await db.conversations.get("c")).toBeUndefined();
      expect(await memory.count(scope)).toBe(0);
      expect(await db.conversations.delete("u", "c")).toBe(false);
    });

    it("delete refuses another user's conversation and leaves it in place", async () => {
      const db = await driver.open();
      await db.conversations.create({ userId: "alice", conversationId: "c" });
      await expectAgentsvcError(() => db.conversations.delete("bob", "c"), "forbidden", 403);
      expect((await db.conversations.get("c"))?.userId).toBe("alice");
    });

    it("exists -> clear: messageCount resets to 0 and the scope's messages are cleared", async () => {
      const db = await driver.open();
      const memory = db.createMemory({ canSummarize: false });
      const scope = { userId: "u", conversationId: "c" };
      await db.conversations.recordTurn({ ...scope, userMessage: "a" });
      await db.conversations.recordTurn({ ...scope, userMessage: "b" });
      await memory.append(scope, [{ role: "user", content: "a" }]);
      expect(await db.conversations.resetCount("u", "c")).toBe(true);
      await memory.clear(scope);
      expect(await db.conversations.get("c")).toMatchObject({ messageCount: 0, title: "a" });
      expect(await memory.count(scope)).toBe(0);
      expect((await db.conversations.recordTurn({ ...scope, userMessage: "c" })).messageCount).toBe(2);
    });

    it("lists only the caller's conversations, newest activity first, with counts", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      await db.conversations.recordTurn({ userId: "u", conversationId: "old", userMessage: "old" });
      t.advance(10);
      await db.conversations.recordTurn({ userId: "u", conversationId: "mid", userMessage: "mid" });
      t.advance(10);
      await db.conversations.recordTurn({ userId: "other", conversationId: "theirs", userMessage: "x" });
      await db.conversations.recordTurn({ userId: "u", conversationId: "new", userMessage: "new" });
      t.advance(10);
      await db.conversations.recordTurn({ userId: "u", conversationId: "old", userMessage: "again" });
      const list = await db.conversations.list("u");
      expect(list.map((c) => [c.conversationId, c.messageCount])).toEqual([
        ["old", 4],
        ["new", 2],
        ["mid", 2],
      ]);
      expect((await db.conversations.list("u", { limit: 1 })).map((c) => c.conversationId)).toEqual(["old"]);
    });

    // SQLite-only: its query plan, or seeding through a second raw connection to the file.
    it.runIf(driver.name === "sqlite")(
      "listing one user's conversations is served by the (user_id, updated_at) index without a sort",
      async () => {
        const db = await driver.open();
        const plan = db.explain(
          "SELECT * FROM conversations WHERE user_id = ? ORDER BY updated_at DESC, rowid DESC",
          "u",
        );
        expect(plan.join("\n")).toMatch(/USING INDEX conversations_user_updated \(user_id=\?\)/);
        expect(plan.join("\n")).not.toMatch(/TEMP B-TREE/);
      },
    );

    // SQLite-only: its query plan, or seeding through a second raw connection to the file.
    it.runIf(driver.name === "sqlite")(
      "a cursor page is a seek in the (user_id, updated_at) index, without a sort",
      async () => {
        const db = await driver.open();
        const plan = db
          .explain(
            "SELECT * FROM conversations WHERE user_id = ? AND (updated_at, rowid) < (?, ?) ORDER BY updated_at DESC, rowid DESC LIMIT 5",
            "u",
            10,
            10,
          )
          .join("\n");
        expect(plan).toMatch(/USING INDEX conversations_user_updated \(user_id=\? AND .*updated_at.*<\?\)/);
        expect(plan).not.toMatch(/TEMP B-TREE/);
      },
    );

    // SQLite-only: its query plan, or seeding through a second raw connection to the file.
    it.runIf(driver.name === "sqlite")("lists 10,000 conversations of one user in order", async () => {
      const db = await driver.open();
      // Seed in one transaction through a second connection (10,000 fsynced API writes would be slow).
      const raw = new Database(db.file);
      const insert = raw.prepare(
        "INSERT INTO conversations (conversation_id, user_id, title, message_count, created_at, updated_at) VALUES (?, ?, NULL, 2, ?, ?)",
      );
      raw.transaction(() => {
        for (let i = 0; i < 20_000; i++) insert.run(`c${i}`, i % 2 ? "u" : "noise", i, i);
      })();
      raw.close();
      const list = await db.conversations.list("u");
      expect(list).toHaveLength(10_000);
      expect(list[0]!.conversationId).toBe("c19999");
      expect(list.at(-1)!.conversationId).toBe("c1");
      for (let i = 1; i < list.length; i++)
        expect(list[i - 1]!.updatedAt).toBeGreaterThan(list[i]!.updatedAt);
    });

    // SQLite-only: its query plan, or seeding through a second raw connection to the file.
    it.runIf(driver.name === "sqlite")(
      "pages through one user's conversations with cursors: every row once, in order, ties included",
      async () => {
        const db = await driver.open();
        const raw = new Database(db.file);
        const insert = raw.prepare(
          "INSERT INTO conversations (conversation_id, user_id, title, message_count, created_at, updated_at) VALUES (?, ?, NULL, 2, ?, ?)",
        );
        // 25 rows of "u", several sharing an updatedAt (rowid breaks the tie), plus another user's rows.
        raw.transaction(() => {
          for (let i = 0; i < 25; i++) insert.run(`c${i}`, "u", i, Math.floor(i / 3));
          for (let i = 0; i < 5; i++) insert.run(`noise${i}`, "v", i, 100);
        })();
        raw.close();
        const seen: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await db.conversations.page("u", { limit: 7, ...(cursor ? { cursor } : {}) });
          seen.push(...page.conversations.map((c) => c.conversationId));
          cursor = page.nextCursor;
          pages++;
        } while (cursor && pages < 10);
        expect(pages).toBe(4);
        expect(seen).toEqual((await db.conversations.list("u")).map((c) => c.conversationId));
        expect(new Set(seen).size).toBe(25);
      },
    );

    it("gives no nextCursor on the last page and refuses a cursor it did not make with 400", async () => {
      const db = await driver.open();
      await db.conversations.recordTurn({ userId: "u", conversationId: "only", userMessage: "hi" });
      expect(await db.conversations.page("u", { limit: 1 })).toEqual({
        conversations: [expect.objectContaining({ conversationId: "only" })],
      });
      for (const bad of ["", "abc", "1.2.3", "-1.2", "1;DROP TABLE conversations"])
        await expectAgentsvcError(
          () => db.conversations.page("u", { limit: 5, cursor: bad }),
          "invalid_cursor",
          400,
        );
    });

    it("rejects a missing userId or conversationId with a 400", async () => {
      const db = await driver.open();
      await expectAgentsvcError(
        () => db.conversations.recordTurn({ userId: "", conversationId: "c" }),
        "invalid_user_id",
        400,
      );
      await expectAgentsvcError(
        () => db.conversations.recordTurn({ userId: "u", conversationId: "" }),
        "invalid_conversation_id",
        400,
      );
    });
  });

  describe("preferences", () => {
    it("set is an upsert on (userId, prefKey) holding any JSON value", async () => {
      const db = await driver.open();
      await db.preferences.set("u", "theme", "dark");
      await db.preferences.set("u", "theme", { mode: "light", accent: [1, 2] });
      await db.preferences.set("u", "count", 3);
      await db.preferences.set("u", "flag", null);
      expect(await db.preferences.getAll("u")).toEqual({
        count: 3,
        flag: null,
        theme: { mode: "light", accent: [1, 2] },
      });
      expect(await db.preferences.get("u", "theme")).toEqual({ mode: "light", accent: [1, 2] });
      expect(await db.preferences.get("u", "missing")).toBeUndefined();
    });

    it("keeps each user's preferences apart", async () => {
      const db = await driver.open();
      await db.preferences.set("a", "theme", "dark");
      await db.preferences.set("b", "theme", "light");
      expect(await db.preferences.getAll("a")).toEqual({ theme: "dark" });
      expect(await db.preferences.delete("b", "theme")).toBe(true);
      expect(await db.preferences.getAll("a")).toEqual({ theme: "dark" });
      expect(await db.preferences.getAll("b")).toEqual({});
    });

    it("delete reports whether the key existed", async () => {
      const db = await driver.open();
      await db.preferences.set("u", "k", 1);
      expect(await db.preferences.delete("u", "k")).toBe(true);
      expect(await db.preferences.delete("u", "k")).toBe(false);
    });

    it("refuses values JSON cannot hold and an empty key", async () => {
      const db = await driver.open();
      await expectAgentsvcError(() => db.preferences.set("u", "k", undefined), "invalid_value", 400);
      await expectAgentsvcError(() => db.preferences.set("u", "k", () => 1), "invalid_value", 400);
      await expectAgentsvcError(() => db.preferences.set("u", "", 1), "invalid_key", 400);
    });

    it("a key named __proto__ is stored and returned as an ordinary key", async () => {
      const db = await driver.open();
      await db.preferences.set("u", "__proto__", { polluted: true });
      const all = await db.preferences.getAll("u");
      expect(Object.keys(all)).toEqual(["__proto__"]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });
});
