// Approval requests sent out through a gateway, so a platform reply ("approve") can be matched to
// the suspended run after a restart. resolve() succeeds once: a second decision is refused.
import type { Decision, DecisionKind } from "@agentsvc/agent-core";
import { and, asc, desc, eq, isNotNull, lte } from "./orm.js";
import type { StoreContext } from "./context.js";
import type { interactions } from "@agentsvc/store-schema/sqlite";
import { first } from "./rows.js";
import { requireId, toJson } from "./validate.js";

export type InteractionDecision = DecisionKind | Omit<Decision, "decidedBy"> | Decision;

export interface InteractionInput {
  requestId: string;
  threadId: string;
  gateway: string;
  thread: string;
  allowedDecisions: DecisionKind[];
  prompt: string;
  createdAt: number;
  /** When an open request is rejected as expired (ms epoch); null: never. */
  expiresAt?: number | null;
  /** Platform id of the person whose message started the run; they may decide. */
  participant?: string | null;
}

export interface InteractionRecord extends InteractionInput {
  expiresAt: number | null;
  participant: string | null;
  status: "open" | "resolved";
  decision: InteractionDecision | null;
  resolvedAt: number | null;
}

function toRecord(row: typeof interactions.$inferSelect): InteractionRecord {
  return {
    ...row,
    allowedDecisions: JSON.parse(row.allowedDecisions) as DecisionKind[],
    decision: row.decision === null ? null : (JSON.parse(row.decision) as InteractionDecision),
  };
}

export class Interactions {
  private get t() {
    return this.ctx.tables;
  }

  constructor(private readonly ctx: StoreContext) {}

  /** Insert, or refresh the descriptive fields of an existing request (its resolution is kept). */
  async save(input: InteractionInput): Promise<void> {
    const values = {
      requestId: requireId(input.requestId, "requestId"),
      threadId: requireId(input.threadId, "threadId"),
      gateway: requireId(input.gateway, "gateway"),
      thread: requireId(input.thread, "thread", 1024),
      allowedDecisions: toJson(input.allowedDecisions, "allowedDecisions"),
      prompt: String(input.prompt),
      createdAt: input.createdAt,
      expiresAt: input.expiresAt ?? null,
      participant: input.participant ?? null,
    };
    const { requestId: _id, ...refresh } = values;
    await this.ctx.run((db) =>
      db
        .insert(this.t.interactions)
        .values(values)
        .onConflictDoUpdate({ target: this.t.interactions.requestId, set: refresh }),
    );
  }

  async get(requestId: string): Promise<InteractionRecord | undefined> {
    const row = first(
      await this.ctx.run((db) =>
        db.select().from(this.t.interactions).where(eq(this.t.interactions.requestId, requestId)),
      ),
    );
    return row && toRecord(row);
  }

  /** The newest open request of a platform thread. */
  async getOpenByThread(gateway: string, thread: string): Promise<InteractionRecord | undefined> {
    const row = first(
      await this.ctx.run((db) =>
        db
          .select()
          .from(this.t.interactions)
          .where(
            and(
              eq(this.t.interactions.gateway, gateway),
              eq(this.t.interactions.thread, thread),
              eq(this.t.interactions.status, "open"),
            ),
          )
          .orderBy(desc(this.t.interactions.createdAt))
          .limit(1),
      ),
    );
    return row && toRecord(row);
  }

  /** Every open request, oldest first (re-rendered after a restart). */
  async listOpen(): Promise<InteractionRecord[]> {
    const rows = await this.ctx.run((db) =>
      db
        .select()
        .from(this.t.interactions)
        .where(eq(this.t.interactions.status, "open"))
        .orderBy(asc(this.t.interactions.createdAt)),
    );
    return rows.map(toRecord);
  }

  /** Open requests whose expiry is at or before `now`. */
  async expired(now: number): Promise<InteractionRecord[]> {
    const rows = await this.ctx.run((db) =>
      db
        .select()
        .from(this.t.interactions)
        .where(
          and(
            eq(this.t.interactions.status, "open"),
            isNotNull(this.t.interactions.expiresAt),
            lte(this.t.interactions.expiresAt, now),
          ),
        )
        .orderBy(asc(this.t.interactions.expiresAt)),
    );
    return rows.map(toRecord);
  }

  /** The soonest expiry among open requests, or undefined. */
  async nextExpiry(): Promise<number | undefined> {
    const rows = await this.ctx.run((db) =>
      db
        .select({ expiresAt: this.t.interactions.expiresAt })
        .from(this.t.interactions)
        .where(and(eq(this.t.interactions.status, "open"), isNotNull(this.t.interactions.expiresAt)))
        .orderBy(asc(this.t.interactions.expiresAt))
        .limit(1),
    );
    return rows[0]?.expiresAt ?? undefined;
  }

  /** open -> resolved, atomically. False when unknown or already resolved. */
  async resolve(requestId: string, decision: InteractionDecision): Promise<boolean> {
    const rows = await this.ctx.run((db) =>
      db
        .update(this.t.interactions)
        .set({ status: "resolved", decision: toJson(decision, "decision"), resolvedAt: this.ctx.now() })
        .where(and(eq(this.t.interactions.requestId, requestId), eq(this.t.interactions.status, "open")))
        .returning({ id: this.t.interactions.requestId }),
    );
    return rows.length > 0;
  }
}
