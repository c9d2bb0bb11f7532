// Suspended runs (approval pending) survive a restart. The owner travels inside `options.userId`;
// the RunManager checks it on resume — this store keeps it faithfully and indexes it.
import { AgentsvcError, type RunStore, type SuspendedRun } from "@agentsvc/agent-core";
import { and, asc, eq } from "./orm.js";
import type { StoreContext } from "./context.js";
import { lockRow } from "./rows.js";
import { clientOf } from "./sqlite-writes.js";
import { requireId, toJson } from "./validate.js";

const LIST_SQLITE = "SELECT state FROM suspended_runs ORDER BY created_at ASC";

export class SqliteRunStore implements RunStore {
  private get t() {
    return this.ctx.tables;
  }

  constructor(private readonly ctx: StoreContext) {}

  async save(run: SuspendedRun, within?: () => void | Promise<void>): Promise<void> {
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
    await this.ctx.transaction(async () => {
      // A decision is recorded once: two instances deciding the same run at the same moment meet
      // here (the row is locked on PostgreSQL; SQLite's write transaction is exclusive), and the
      // second finds the first's decision and is refused, so the approved call never runs twice.
      if (run.continuation?.phase === "decided") {
        const [stored] = await this.ctx.run((db) =>
          lockRow(db, this.t.suspendedRuns, eq(this.t.suspendedRuns.threadId, threadId), this.ctx),
        );
        if (!stored || (JSON.parse(stored.state) as SuspendedRun).continuation) {
          throw new AgentsvcError("not_found", `no run awaiting approval under threadId ${threadId}`, 404);
        }
      }
      await this.ctx.run((db) =>
        db
          .insert(this.t.suspendedRuns)
          .values(values)
          .onConflictDoUpdate({ target: this.t.suspendedRuns.threadId, set: values }),
      );
      await within?.();
    });
  }

  async get(threadId: string): Promise<SuspendedRun | undefined> {
    const rows = await this.ctx.run((db) =>
      db
        .select({ state: this.t.suspendedRuns.state })
        .from(this.t.suspendedRuns)
        .where(eq(this.t.suspendedRuns.threadId, threadId)),
    );
    return rows[0] && (JSON.parse(rows[0].state) as SuspendedRun);
  }

  async delete(threadId: string): Promise<void> {
    await this.ctx.run((db) =>
      db.delete(this.t.suspendedRuns).where(eq(this.t.suspendedRuns.threadId, threadId)),
    );
  }

  /** The delete, inside a caller's transaction (memory and runs share this database). */
  deleteWithin(threadId: string): Promise<void> {
    return this.delete(threadId);
  }

  async listByConversation(userId: string, conversationId: string): Promise<SuspendedRun[]> {
    const rows = await this.ctx.run((db) =>
      db
        .select({ state: this.t.suspendedRuns.state })
        .from(this.t.suspendedRuns)
        .where(
          and(
            eq(this.t.suspendedRuns.userId, userId),
            eq(this.t.suspendedRuns.conversationId, conversationId),
          ),
        )
        .orderBy(asc(this.t.suspendedRuns.createdAt)),
    );
    return rows.map((row) => JSON.parse(row.state) as SuspendedRun);
  }

  async list(): Promise<SuspendedRun[]> {
    // SQLite: written here, not built by drizzle: a start lists once, and building the query was
    // most of that first statement's time (as for the memory's reads and inserts).
    const rows = await this.ctx.run(
      async (db): Promise<{ state: string }[]> =>
        this.ctx.dialect === "sqlite"
          ? (clientOf(db).prepare(LIST_SQLITE).all() as { state: string }[])
          : db
              .select({ state: this.t.suspendedRuns.state })
              .from(this.t.suspendedRuns)
              .orderBy(asc(this.t.suspendedRuns.createdAt)),
    );
    return rows.map((row) => JSON.parse(row.state) as SuspendedRun);
  }
}
