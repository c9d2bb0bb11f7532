import type { RunStore, SuspendedRun } from "./run-store.js";

/** Suspended runs in process memory (copied in and out, like a durable store would). Lost on restart. */
export class InMemoryRunStore implements RunStore {
  private readonly runs = new Map<string, SuspendedRun>();

  async save(run: SuspendedRun, within?: () => void | Promise<void>): Promise<void> {
    const copy = structuredClone(run);
    await within?.();
    this.runs.set(run.options.threadId, copy);
  }

  async get(threadId: string): Promise<SuspendedRun | undefined> {
    const run = this.runs.get(threadId);
    return run ? structuredClone(run) : undefined;
  }

  async delete(threadId: string): Promise<void> {
    this.runs.delete(threadId);
  }

  deleteWithin(threadId: string): void {
    this.runs.delete(threadId);
  }

  async listByConversation(userId: string, conversationId: string): Promise<SuspendedRun[]> {
    return [...this.runs.values()]
      .filter((r) => r.options.userId === userId && r.options.conversationId === conversationId)
      .map((r) => structuredClone(r));
  }

  async list(): Promise<SuspendedRun[]> {
    return [...this.runs.values()].map((r) => structuredClone(r));
  }
}
