// A turn appended without `within` is one statement with no transaction around it (memory.ts):
// its messages must still land together or not at all.
import type { Message } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import type { StoreContext } from "../src/context.js";
import type { ChatDb } from "../src/index.js";
import { sql } from "../src/orm.js";
import { eachDriver } from "./helpers.js";

const A = { userId: "alice", conversationId: "c1" };

/** Has the database refuse any memory row whose body holds "boom" (as a full disk would, mid-statement). */
async function refuseBoom(db: ChatDb): Promise<void> {
  const { ctx } = db as unknown as { ctx: StoreContext };
  if (db.dialect === "sqlite") {
    await ctx.run(async (d) =>
      d.run(sql`CREATE TRIGGER refuse_boom BEFORE INSERT ON memory_messages
        WHEN NEW.body LIKE '%boom%' BEGIN SELECT RAISE(ABORT, 'refused'); END`),
    );
    return;
  }
  const execute = (d: unknown, q: ReturnType<typeof sql>) =>
    (d as { execute(q: unknown): Promise<unknown> }).execute(q);
  await ctx.run((d) =>
    execute(
      d,
      sql.raw(`CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.body LIKE '%boom%' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`),
    ),
  );
  await ctx.run((d) =>
    execute(
      d,
      sql.raw(
        "CREATE TRIGGER refuse_boom BEFORE INSERT ON memory_messages FOR EACH ROW EXECUTE FUNCTION refuse_boom()",
      ),
    ),
  );
}

eachDriver((driver) => {
  describe("Memory.append without within", () => {
    it("keeps none of the turn's messages when one of them is refused after the first was written", async () => {
      const db = await driver.open();
      const memory = db.createMemory({ canSummarize: false });
      await memory.append(A, [{ role: "user", content: "kept" }]);
      await refuseBoom(db);
      const turn: Message[] = [
        { role: "user", content: "question" },
        { role: "assistant", content: "boom" },
      ];
      const error = await memory.append(A, turn).then(
        () => undefined,
        (e: Error) => e,
      );
      // PostgreSQL's driver wraps the database's error (drizzle's "Failed query", the cause).
      expect(`${error?.message} ${(error?.cause as Error | undefined)?.message}`).toContain("refused");
      expect(await memory.load(A)).toEqual([{ role: "user", content: "kept" }]);
      expect(await memory.loadPrompt(A)).toEqual([{ role: "user", content: "kept" }]);
    });
  });
});
