// A project with no gateway (no channel, no push gateway, no `cli` prompt on this terminal), no
// schedule and one instance, whose store holds nothing for the gateway session, starts without
// session-core's session (its code is most of what session-core weighs at start, #45.1). This
// stand-in answers as that session would with no gateway, prunes on its schedule, and makes the real
// session (which then recovers as at a start) the first time there is work for it: a suspended run
// it owns (an agent-route approval, rejected at once), a delivery, or an outbox piece requeued
// behind its back (`agentsvc outbox`), found by the same look the real sender makes.
import type { PendingApproval, RunManager, SuspendedRun } from "@agentsvc/agent-core";
import type { ChatDb } from "@agentsvc/chat-store";
import type { GatewaySession, GatewaySessionOptions } from "@agentsvc/session-core";
import {
  DEFAULT_RETENTION,
  OUTBOX_IDLE_POLL_MS,
  pruneOnce,
  Scheduler,
  sessionLogger,
} from "@agentsvc/session-core/host";

/** What the server uses of the gateway session (the real one, or the stand-in). */
export type ServerSession = Pick<
  GatewaySession,
  "start" | "stop" | "status" | "queueDepths" | "handleSuspension" | "deliver" | "credentialsRejected"
>;

/**
 * True when the store holds what a starting session recovers or sends: an unfinished inbound
 * message, an outbox piece pending, an open approval request, a run to continue, or a suspended run
 * it owns (asked again, or rejected when no channel can ask). The reads are recovery's own; a store
 * this start created (a first start) holds none of it, so it is not read.
 */
export async function sessionHasWork(
  store: ChatDb,
  runs: RunManager,
  ownsRun: (run: SuspendedRun) => boolean,
): Promise<boolean> {
  if (store.migration.from === 0) return false;
  const [inbox, due, open, interrupted, saved] = await Promise.all([
    store.inbox.unfinished(),
    store.outbox.nextDueAt(),
    store.interactions.listOpen(),
    runs.interrupted(),
    store.runStore.list(),
  ]);
  return (
    inbox.length > 0 ||
    due !== undefined ||
    open.length > 0 ||
    interrupted.length > 0 ||
    saved.some((run) => ownsRun(run))
  );
}

/** The session of a project with no gateway, made real when work comes (see the file's head). */
export class IdleSession implements ServerSession {
  readonly #options: GatewaySessionOptions & { store: ChatDb };
  readonly #scheduler: Scheduler;
  #real: Promise<GatewaySession> | undefined;
  /** The real session once started: every call goes to it. */
  #session: GatewaySession | undefined;
  #stopped = false;

  constructor(options: GatewaySessionOptions & { store: ChatDb }) {
    this.#scheduler = new Scheduler(sessionLogger(options.loggers ?? {}));
    this.#options = { ...options, scheduler: this.#scheduler };
  }

  async start(): Promise<void> {
    const logger = sessionLogger(this.#options.loggers ?? {});
    // The real session's task, under its name (it replaces this one if the session is made).
    this.#scheduler.every("session:prune", DEFAULT_RETENTION.intervalMs, () =>
      pruneOnce(this.#options.store, DEFAULT_RETENTION, logger).then(() => {}),
    );
    this.#scheduler.every("session:outbox-look", OUTBOX_IDLE_POLL_MS, async () => {
      if ((await this.#options.store.outbox.nextDueAt()) !== undefined) await this.#made();
    });
  }

  async stop(drainMs?: number): Promise<void> {
    this.#stopped = true;
    // A session that failed to start has nothing to stop (its failure went to the caller).
    const real = await this.#real?.catch(() => undefined);
    this.#scheduler.stopAll();
    await real?.stop(drainMs);
  }

  /** No gateway: none to show (as the real session shows with none registered). */
  status(): ReturnType<GatewaySession["status"]> {
    return this.#session?.status() ?? {};
  }

  queueDepths(): Record<string, number> {
    return this.#session?.queueDepths() ?? {};
  }

  /** No gateway: no credentials to reject (the real session ignores a name it does not hold). */
  credentialsRejected(gateway: string, envVar: string, detail: string): void {
    this.#session?.credentialsRejected(gateway, envVar, detail);
  }

  async handleSuspension(run: SuspendedRun, pending: PendingApproval): Promise<void> {
    if (this.#stopped) return;
    const made = this.#session === undefined;
    const session = await this.#made();
    // A session made now has recovered the suspended runs the store held, this one among them when
    // it was saved in time (asked, or rejected and resumed): only one still waiting goes on to it
    // (rejecting twice would log the second rejection's failure).
    const { threadId, userId } = run.options;
    if (made && !(await this.#options.runs.pending(threadId, { userId }))) return;
    await session.handleSuspension(run, pending);
  }

  async deliver(...args: Parameters<GatewaySession["deliver"]>): ReturnType<GatewaySession["deliver"]> {
    return (await this.#made()).deliver(...args);
  }

  /** The real session, made and started once (its start recovers what the store holds by then). */
  #made(): Promise<GatewaySession> {
    this.#real ??= (async () => {
      const { createGatewaySession } = await import("@agentsvc/session-core");
      const session = createGatewaySession(this.#options);
      await session.start();
      this.#session = session;
      this.#scheduler.cancel("session:outbox-look");
      return session;
    })().catch((error: unknown) => {
      // The next work tries again (the outbox look keeps looking meanwhile).
      this.#real = undefined;
      throw error;
    });
    return this.#real;
  }
}
