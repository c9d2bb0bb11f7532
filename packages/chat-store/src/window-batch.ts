// Prompt windows read on PostgreSQL, grouped (statement-batch.ts): turns starting while one read is
// in flight read theirs together in the next statement, each scope's `(head) UNION ALL (recent)`
// run for it by a LATERAL join over the scopes (two array parameters: one statement text for any
// number of scopes). Each scope's rows come from the same two indexed LIMIT reads as alone.
import type { StoreContext } from "./context.js";
import { sql } from "./orm.js";
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
  const m = ctx.tables.memoryMessages;
  return new StatementBatch(async (scopes) => {
    // The range on conversation_id, as the single read has it, keeps the (user, conversation, id) index in use.
    const inScope = sql`${m.userId} = s.u AND ${m.conversationId} >= s.c AND ${m.conversationId} <= s.c`;
    const query = sql`SELECT s.n::int AS n, w.id, w.role, w.body
      FROM unnest(${sql.param(scopes.map((s) => s.userId))}::text[], ${sql.param(scopes.map((s) => s.conversationId))}::text[])
        WITH ORDINALITY AS s(u, c, n)
      CROSS JOIN LATERAL (
        (SELECT ${m.id}, ${m.role}, ${m.body} FROM ${m} WHERE ${inScope} ORDER BY ${m.conversationId} ASC, ${m.id} ASC LIMIT 1)
        UNION ALL
        (SELECT ${m.id}, ${m.role}, ${m.body} FROM ${m} WHERE ${inScope} ORDER BY ${m.conversationId} DESC, ${m.id} DESC LIMIT ${sql.param(limit)}::int)
      ) w`;
    const result = (await ctx.run((db) =>
      (db as unknown as { execute(q: typeof query): Promise<unknown> }).execute(query),
    )) as { rows: { n: number; id: number | string; role: string; body: string }[] };
    const rows: WindowRow[][] = scopes.map(() => []);
    // bigint ids come back as strings from a raw statement.
    for (const r of result.rows) rows[r.n - 1]?.push({ id: Number(r.id), role: r.role, body: r.body });
    return rows;
  }, MAX_SCOPES);
}
