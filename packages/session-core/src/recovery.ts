// What a previous process left, picked up before any gateway starts (so nothing delivered during
// start can run twice): continuations that had their decision, turns that never committed,
// queued messages in per-thread order, suspended turns and their open requests (asked again).
import { AgentsvcError, type SuspendedRun } from "@agentsvc/agent-core";
import type { Approvals } from "./approvals.js";
import type { InteractionRequest } from "./gateway.js";
import type { SessionParts } from "./parts.js";
import { gatewayThreadId } from "./threads.js";
import { messageOf } from "./ownership.js";
import type { Turns } from "./turns.js";

export interface RecoveryScope {
  bootId: string;
  ownsRun: (run: SuspendedRun) => boolean;
  /**
   * The gateway threads this pass takes: all (default), none, or one (an instance taking it over;
   * its records are read under a lock, so a turn of it committing elsewhere ends first).
   */
  threads?: "all" | "none" | { gateway: string; thread: string };
  /** Runs that are not gateway turns (agent route, approval channel), and re-asking open requests. Default true. */
  shared?: boolean;
}

export async function recover(
  p: SessionParts,
  turns: Turns,
  approvals: Approvals,
  options: RecoveryScope,
): Promise<Set<number>> {
  const known = new Set<number>();
  const scope = options.threads ?? "all";
  const one = typeof scope === "object" ? gatewayThreadId(scope.gateway, scope.thread) : undefined;
  const mine = (threadId: string) => scope === "all" || threadId === one;
  const shared = options.shared ?? true;
  const records =
    scope === "all"
      ? await p.store.inbox.unfinished()
      : // Stryker disable next-line StringLiteral: "none" falling through reads unfinishedOf(undefined, undefined), which matches no record
        scope === "none"
        ? []
        : await p.store.inbox.unfinishedOf(scope.gateway, scope.thread);
  const runningByThread = new Map(
    records.filter((r) => r.status === "running").map((r) => [gatewayThreadId(r.gateway, r.thread), r]),
  );

  // 1. Continuations whose decision was recorded: go on from their checkpoint. A gateway turn's
  // checkpoint goes in the transaction that ends its record, so a thread taken over with no
  // running record has none: not asked (one read fewer for every thread an instance takes).
  const mayHaveOne = one === undefined || runningByThread.has(one);
  const interrupted = (mayHaveOne ? await p.runs.interrupted?.(one) : undefined) ?? [];
  for (const run of interrupted) {
    const gatewayRun = run.options.threadId.startsWith("gw:");
    if (gatewayRun ? !mine(run.options.threadId) : !shared) continue;
    const rec = runningByThread.get(run.options.threadId);
    if (rec && p.registry.get(rec.gateway)) {
      // Either set alone keeps the record from being taken again: step 2 and the inbound path
      // (session.ts) check both, and takeFresh reads only queued records (this one runs).
      // Stryker disable next-line CallExpression: see above
      known.add(rec.id);
      // Stryker disable next-line CallExpression: see above
      p.threads.get(rec.gateway, rec.thread).taken.add(rec.id);
      await p.threads.with(rec.gateway, rec.thread, async (state) => {
        const active = {
          inboxId: rec.id,
          phase: "running" as const,
          origin: messageOf(rec).origin,
          steered: [],
          committed: false,
        };
        state.active = active;
        try {
          // Without a way to go on, the turn is over: left running, its thread would wait for good.
          if (!p.runs.continueInterrupted)
            throw new Error("the run manager cannot continue interrupted runs");
          const handle = await p.runs.continueInterrupted(
            run.options.threadId,
            turns.persistHooks(state, active),
          );
          turns.follow(state, handle);
        } catch (err) {
          // One turn that cannot go on ends with the failure reply; it does not stop the boot. Its
          // checkpoint goes first (left, it keeps the thread busy for good; a crash between the two
          // leaves a turn with nothing behind it, which the next boot runs again from its message).
          if (!(err instanceof AgentsvcError && err.code === "thread_busy")) {
            await p.store.runStore.delete(run.options.threadId);
            p.runs.release?.(run.options.threadId);
          }
          await turns.giveUp(state, active, err, "could not continue an interrupted turn");
        }
      });
    } else {
      await continueDetached(p, run);
    }
  }

  // 2. Inbound records, oldest first.
  const suspendedNow: { run: SuspendedRun; threadId: string }[] = [];
  for (const rec of records) {
    // Stryker disable next-line LogicalOperator: this pass puts every id in both sets, on a thread state that took nothing before it (boot, or a thread just adopted)
    if (known.has(rec.id) || p.threads.peek(rec.gateway, rec.thread)?.taken.has(rec.id)) continue;
    if (!p.registry.get(rec.gateway)) {
      p.logger.warn(
        { id: rec.id, gateway: rec.gateway },
        "unfinished message of an unregistered gateway left as is",
      );
      continue;
    }
    // Stryker disable next-line CallExpression: `taken` below keeps it from being taken twice (records are unique; the inbound path checks both)
    known.add(rec.id);
    p.threads.get(rec.gateway, rec.thread).taken.add(rec.id);
    const state = p.threads.get(rec.gateway, rec.thread);
    const msg = messageOf(rec);
    if (rec.status === "running" && !state.active) {
      const saved = await p.store.runStore.get(state.threadId);
      if (saved && !saved.continuation) {
        state.active = {
          inboxId: rec.id,
          phase: "suspended",
          origin: msg.origin,
          steered: [],
          committed: false,
        };
        const open = await p.store.interactions.getOpenByThread(rec.gateway, rec.thread);
        if (open?.threadId === state.threadId) state.pendingRequestId = open.requestId;
        else suspendedNow.push({ run: saved, threadId: state.threadId });
        continue;
      }
      // Never committed and no checkpoint: the turn left nothing behind, so it runs again (first).
      // Stryker disable next-line BooleanLiteral: marking a running record running again changes nothing (markRunning takes only queued records)
      state.queue.unshift({ ...msg, running: true });
      continue;
    }
    state.queue.push(msg);
  }

  // 3. Suspended runs whose request was never saved, and approval-channel runs: ask now. Requests
  // open before this boot are the ones step 4 asks again (a request made here is not asked twice).
  // Stryker disable next-line ArrayDeclaration: a stand-in entry names no gateway, so step 4 skips it
  const openBefore = shared ? await p.store.interactions.listOpen() : [];
  const asked = new Set(openBefore.map((i) => i.threadId));
  for (const run of shared ? await p.store.runStore.list() : []) {
    // Stryker disable next-line LogicalOperator,ArrowFunction: duplicated below: runs.pending answers nothing for a continuation, and a run of suspendedNow is a gateway turn (it has an origin)
    if (run.continuation || suspendedNow.some((s) => s.threadId === run.options.threadId)) continue;
    if (!run.options.origin && options.ownsRun(run) && !asked.has(run.options.threadId)) {
      suspendedNow.push({ run, threadId: run.options.threadId });
    }
  }
  for (const { run } of suspendedNow) {
    const pending = await p.runs.pending(run.options.threadId, { userId: run.options.userId });
    if (pending) await approvals.onSuspended(run, pending);
  }

  // 4. Open requests are asked again: a prompt on a terminal or a chat may be gone with the process.
  for (const open of openBefore) {
    const gateway = p.registry.get(open.gateway);
    const run = await p.store.runStore.get(open.threadId);
    if (!gateway || !run || run.continuation) continue;
    const request: InteractionRequest = {
      requestId: open.requestId,
      threadId: open.threadId,
      gateway: open.gateway,
      thread: open.thread,
      allowedDecisions: open.allowedDecisions,
      toolName: run.pendingCall.name,
      arguments: run.pendingCall.arguments,
      prompt: open.prompt,
      createdAt: open.createdAt,
      ...(open.expiresAt !== null ? { expiresAt: open.expiresAt } : {}),
      ...(run.options.origin?.meta ? { meta: run.options.origin.meta } : {}),
    };
    await p.store.outbox.enqueue(approvals.renderItems(gateway, request, `boot-${options.bootId}`));
    // A thread held elsewhere (several instances) learns its request when it is adopted.
    if (!mine(open.threadId)) continue;
    const state = p.threads.get(open.gateway, open.thread);
    state.pendingRequestId ??= open.requestId;
  }

  // 5. Idle threads with queued messages start their next turn: of one thread taken over, that
  // thread's state alone (not a walk over every thread this instance holds, once per adoption).
  const taken = one === undefined ? undefined : p.threads.byId(one);
  const states = scope === "all" ? p.threads.all() : taken ? [taken] : [];
  for (const state of states) {
    // Stryker disable next-line LogicalOperator: the checks inside the lock stand in for it (another thread held here is active or has an empty queue)
    if (!mine(state.threadId) || state.active || state.queue.length === 0) continue;
    p.track(
      p.threads.with(state.gateway, state.thread, async (s) => {
        if (s.active) return;
        const next = s.queue.shift();
        if (next) await turns.start(s, next);
      }),
    );
  }
  return known;
}

/** A continuation of a run that is not a gateway turn (agent route, webui): it saves itself. */
async function continueDetached(p: SessionParts, run: SuspendedRun): Promise<void> {
  try {
    const handle = await p.runs.continueInterrupted?.(run.options.threadId);
    if (handle)
      p.track(
        handle.done.then((r) =>
          p.logger.info({ threadId: run.options.threadId, status: r.status }, "continued run ended"),
        ),
      );
  } catch (err) {
    p.logger.error({ err, threadId: run.options.threadId }, "could not continue an interrupted run");
  }
}
