// An inbox accept inside a caller's transaction on PostgreSQL (inbox.ts accept): its INSERT is one of
// the transaction's statements, not the grouped lane's, so it is undone with the transaction, and an
// accept made outside it at the same moment is not drawn into it (the lane's statement runs where
// its first caller is); and one that carries an announcement is answered announced, its
// NOTIFY heard by the thread's holder once the transaction commits.
import { AsyncResource } from "node:async_hooks";
import type { RunOrigin } from "@agentsvc/agent-core";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { withOwnConnection } from "./pg-statements.js";

const origin: RunOrigin = { gateway: "g", thread: "t", meta: {} };
const message = (dedupKey: string) => ({ gateway: "g", dedupKey, thread: "t", text: dedupKey, origin });
const KEY = "7355612";
const CHANNEL = "announce_in_transaction_test";
const PAYLOAD = '{"kind":"thread","gateway":"g","thread":"t","held":true,"target":"g:t"}';

describe.skipIf(postgresMissing)("[postgres] an inbox accept inside a transaction", () => {
  it("is undone with the transaction when it rolls back: no record stays", async () => {
    await withOwnConnection(async (db, reader) => {
      const failed = await db
        .transaction(async () => {
          const result = await db.inbox.accept(message("m1"));
          expect(result).toEqual({ accepted: true, id: expect.any(Number) });
          throw new Error("the caller's later write failed");
        })
        .catch((e: unknown) => e);
      expect(failed).toMatchObject({ message: "the caller's later write failed" });
      const { rows } = await reader.query('SELECT count(*)::int AS n FROM "inbox"');
      expect(rows[0]?.n).toBe(0);
      expect(await db.inbox.unfinished()).toEqual([]);
    });
  });

  it("is not grouped with an accept made outside it in the same tick: that one stays recorded when the transaction rolls back", async () => {
    await withOwnConnection(async (db, reader) => {
      // Called from inside the transaction's callback, but in the context it was made in: outside.
      const outside = AsyncResource.bind(() => db.inbox.accept(message("kept")));
      let kept: Promise<unknown> | undefined;
      await db
        .transaction(async () => {
          const inside = db.inbox.accept(message("undone"));
          kept = outside();
          await inside;
          throw new Error("the caller's later write failed");
        })
        .catch(() => undefined);
      expect(await kept).toEqual({ accepted: true, id: expect.any(Number) });
      const { rows } = await reader.query('SELECT dedup_key FROM "inbox" ORDER BY id');
      expect(rows.map((r) => r.dedup_key)).toEqual(["kept"]);
    });
  });

  it("with an announcement, while another session holds the thread's lock, is answered announced and heard once committed", async () => {
    await withOwnConnection(async (db, holder) => {
      const heard: string[] = [];
      holder.on("notification", (n) => heard.push(n.payload ?? ""));
      await holder.query(`LISTEN ${CHANNEL}`);
      await holder.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
      const result = await db.transaction(() =>
        db.inbox.accept(message("m1"), {
          announce: { lock: { pid: 0, key: KEY }, channel: CHANNEL, payload: PAYLOAD },
        }),
      );
      expect(result).toEqual({ accepted: true, id: expect.any(Number), announced: true });
      const id = (result as { id: number }).id;
      // A marker sent after the commit arrives after the announcement.
      await holder.query("SELECT pg_notify($1, 'marker')", [CHANNEL]);
      for (let i = 0; i < 500 && !heard.includes("marker"); i++) await new Promise((r) => setTimeout(r, 10));
      expect(heard.filter((h) => h !== "marker").map((p) => (JSON.parse(p) as { id: number }).id)).toEqual([
        id,
      ]);
    });
  });
});
