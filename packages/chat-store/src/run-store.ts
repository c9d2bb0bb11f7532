// Suspended runs (approval pending) survive a restart. The owner travels inside `options.userId`;
// the RunManager checks it on resume — this store keeps it faithfully and indexes it.
import type { RunStore, SuspendedRun } from "@agentsvc/agent-core";
import { and, asc, eq } from "./orm.js";
import type { StoreContext } from "./context.js";
import { suspendedRuns } from "./schema.js";
import { requireId, toJson } from "./validate.js";

export class SqliteRunStore implements RunStore {
  constructor(private readonly ctx: StoreContext) {}

  async save(run: SuspendedRun, within?: () => void): Promise<void> {
    const threadId = requireId(run?.options?.threadId, "options.threadId");
    const userId = requireId(run.options.userId, "options.userId");
    const conversationId = requireId(run.options.conversationId, "options.conversationId");
    const state = toJson(run, "run");
    const values = {
      threadId,
      userId,
      conversationId,
      agentName: run.agentName,
      state,
      createdAt: run.createdAt,
    };
    this.ctx.db.transaction(
      (tx) => {
        tx.insert(suspendedRuns)
          .values(values)
          .onConflictDoUpdate({ target: suspendedRuns.threadId, set: values })
          .run();
        within?.();
      },
      { behavior: "immediate" },
    );
  }

  async get(threadId: string): Promise<SuspendedRun | undefined> {
    const row = this.ctx.db
      .select({ state: suspendedRuns.state })
      .from(suspendedRuns)
      .where(eq(suspendedRuns.threadId, threadId))
      .get();
    return row && (JSON.parse(row.state) as SuspendedRun);
  }

  async delete(threadId: string): Promise<void> {
    this.deleteWithin(threadId);
  }

  /** Synchronous delete, for a caller's transaction (memory and runs share this database). */
  deleteWithin(threadId: string): void {
    this.ctx.db.delete(suspendedRuns).where(eq(suspendedRuns.threadId, threadId)).run();
  }

  async listByConversation(userId: string, conversationId: string): Promise<SuspendedRun[]> {
    return this.ctx.db
      .select({ state: suspendedRuns.state })
      .from(suspendedRuns)
      .where(and(eq(suspendedRuns.userId, userId), eq(suspendedRuns.conversationId, conversationId)))
      .orderBy(asc(suspendedRuns.createdAt))
      .all()
      .map((row) => JSON.parse(row.state) as SuspendedRun);
  }

  async list(): Promise<SuspendedRun[]> {
    return this.ctx.db
      .select({ state: suspendedRuns.state })
      .from(suspendedRuns)
      .orderBy(asc(suspendedRuns.createdAt))
      .all()
      .map((row) => JSON.parse(row.state) as SuspendedRun);
  }
}
