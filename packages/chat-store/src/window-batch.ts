// Prompt windows read on PostgreSQL, grouped (statement-batch.ts): turns starting while one read is
// in flight read theirs together in the next statement, each scope's `(head) UNION ALL (recent)`
// run for it by a LATERAL join over the scopes (two array parameters: one statement text for any
// number of scopes). Each scope's rows come from the same two indexed LIMIT reads as alone.
import type { StoreContext } from "./context.js";
import { type PgQuery, pgRows } from "./pg-writes.js";
import { StatementBatch } from "./statement-batch.js";

/** A row the prompt window reads. */
export interface WindowRow {
  id: number;
  role: string;
  body: string;
}

export interface WindowScope {
  userId: string;
  conversationId: string;
}

/** Scopes one grouped statement serves. */
const MAX_SCOPES = 200;

/** `add(scope)` answers with the scope's first row and its newest `limit` rows (unsorted; the head may come twice). */
export function windowBatch(ctx: StoreContext, limit: number): StatementBatch<WindowScope, WindowRow[]> {
  return new StatementBatch(async (scopes) => {
    const result = await ctx.run((db) => pgRows(db, promptWindows(scopes, limit)));
    const rows: WindowRow[][] = scopes.map(() => []);
    // bigint ids come back as strings from node-postgres.
    for (const r of result)
      rows[Number(r.n) - 1]?.push({ id: Number(r.id), role: String(r.role), body: String(r.body) });
    return rows;
  }, MAX_SCOPES);
}

// The range on conversation_id, as the single read has it, keeps the (user, conversation, id) index in use.
const IN_SCOPE = "m.user_id = s.u AND m.conversation_id >= s.c AND m.conversation_id <= s.c";
const PROMPT_WINDOWS = `SELECT s.n::int AS n, w.id, w.role, w.body
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS s(u, c, n)
  CROSS JOIN LATERAL (
    (SELECT m.id, m.role, m.body FROM "memory_messages" m WHERE ${IN_SCOPE} ORDER BY m.conversation_id ASC, m.id ASC LIMIT 1)
    UNION ALL
    (SELECT m.id, m.role, m.body FROM "memory_messages" m WHERE ${IN_SCOPE} ORDER BY m.conversation_id DESC, m.id DESC LIMIT $3::int)
  ) w`;

/** SQL written once (pg-writes.ts): one text for any number of scopes. */
function promptWindows(scopes: readonly WindowScope[], limit: number): PgQuery {
  return {
    text: PROMPT_WINDOWS,
    params: [scopes.map((s) => s.userId), scopes.map((s) => s.conversationId), limit],
  };
}
