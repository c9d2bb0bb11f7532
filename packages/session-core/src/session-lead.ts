// The leader's part of a session: the instance that leads holds the platform connections (long
// polls, sockets, IMAP) and sends the outbox; one instance always leads. Shared sessions also hear
// here what other instances announce (a thread to look at, pieces to send).
import type { SuspendedRun } from "@agentsvc/agent-core";
import type { Approvals } from "./approvals.js";
import type { ClusterMessage, Coordination } from "./coordination.js";
import type { DecideResult, Gateway } from "./gateway.js";
import { OutboxShares } from "./outbox-shares.js";
import type { Carried, Ownership } from "./ownership.js";
import type { SessionParts } from "./parts.js";
import { recover } from "./recovery.js";
import { coalesced, OUTBOX_WAKE_WINDOW_MS } from "./session-sender.js";
import type { Scheduler } from "./scheduler.js";
import { gatewayThreadId, type QueuedMessage } from "./threads.js";
import type { Turns } from "./turns.js";

/** A gateway that holds a connection to its platform (a long poll, a socket, an IMAP poll, a stream): one instance at a time. */
export function holdsConnection(gateway: Gateway): boolean {
  return gateway.kind === "push" && !gateway.webhooks;
}

/** Stops the gateways `which` picks; one that fails to stop is logged, the rest still stop. */
export async function stopGateways(parts: SessionParts, which: (gateway: Gateway) => boolean): Promise<void> {
  for (const gateway of parts.registry.list()) {
    if (!which(gateway)) continue;
    try {
      await gateway.stop();
    } catch (err) {
      parts.loggerFor(gateway).error({ err }, "gateway failed to stop cleanly");
    }
  }
}

/** Periods an idle leader lets pass between two looks for work nobody took. */
const MAX_IDLE_SWEEP_SKIP = 7;
/**
 * Periods from one look of an instance that does not lead to its next, busy or idle: the leader's
 * sweep finds work nobody took (a dead instance's threads, a lost announcement) on its own, so the
 * others' looks are only a second net, not one list of the inbox per instance per period.
 */
const FOLLOWER_SWEEP_PERIODS = 16;

/** The scheduler's name of the look for work nobody took. */
const SWEEP_TASK = "session:sweep";

export interface SessionLeadDeps {
  parts: SessionParts;
  turns: Turns;
  approvals: Approvals;
  coordination: Coordination;
  ownership: Ownership;
  scheduler: Scheduler;
  bootId: string;
  ownsRun: (run: SuspendedRun) => boolean;
  startGateway(gateway: Gateway): Promise<void>;
}

export class SessionLead {
  #leading = false;
  /**
   * Wakes this instance's sender for the others' `outbox` announcements: at once, then at most once
   * per window however many instances announced in it (each announces at most once per window on
   * its own; without this the sender would make a pass, and its last empty read, per instance).
   */
  readonly #remoteOutboxWake: () => void;
  /** Makes the next period sweep (a new leader looks for what the instance it replaces left). */
  #sweepSoon: (() => void) | undefined;
  /** Several instances: which outbox partitions this one sends (all while it leads, unless it shares a backlog). */
  readonly #shares: OutboxShares | undefined;

  constructor(private readonly d: SessionLeadDeps) {
    const { parts, coordination } = d;
    this.#remoteOutboxWake = coalesced(() => parts.sender.wake(true), OUTBOX_WAKE_WINDOW_MS);
    if (!coordination.shared) return;
    this.#shares = new OutboxShares({
      coordination,
      sender: parts.sender,
      pinned: (name) => {
        const gateway = parts.registry.get(name);
        return !gateway || holdsConnection(gateway);
      },
      gateways: () => parts.registry.list().map((gateway) => gateway.name),
      logger: parts.logger,
      stopping: () => parts.stopping(),
    });
  }

  /** Stops sending: every outbox partition given up (several instances), then the sender stopped. */
  async stopSending(): Promise<void> {
    await this.#shares?.stop();
    await this.d.parts.sender.stop();
  }

  /**
   * This instance leads (always, for one instance): it holds the platform connections, sends the
   * outbox (woken by the others' announcements; an announcement lost is found by the sender's own
   * timed look, `idlePollMs`, one read of the next due time), expires approvals (one instance; of several, see expireEvery), and (shared) continues
   * runs that are not gateway turns and asks open requests again.
   */
  async lead(): Promise<void> {
    const { parts, coordination } = this.d;
    if (parts.stopping()) return;
    this.#leading = true;
    if (coordination.shared) {
      parts.logger.info(
        { bootId: this.d.bootId },
        "this instance leads: platform connections and the outbox",
      );
      await recover(parts, this.d.turns, this.d.approvals, {
        bootId: this.d.bootId,
        ownsRun: this.d.ownsRun,
        threads: "none",
      });
      for (const gateway of parts.registry.list()) {
        if (holdsConnection(gateway)) await this.d.startGateway(gateway);
      }
    }
    this.#sweepSoon?.();
    // Several instances: the sender starts once this instance holds its outbox partitions.
    if (this.#shares) this.#shares.lead();
    else parts.sender.start();
    if (!coordination.shared) this.expireEvery();
  }

  /**
   * The periodic expiry of approval requests: on the leader for one instance. Of several, the
   * leader expires those of threads it holds or can take, and an instance that does not lead only
   * while it holds threads (a request whose thread it holds is its own; the rest are the leader's),
   * so one at rest reads nothing.
   */
  expireEvery(): void {
    this.d.scheduler.every("session:approval-expiry", 30_000, async () => {
      if (this.#leading || this.d.ownership.holdsAny) await this.d.approvals.expireDue();
    });
  }

  async unlead(): Promise<void> {
    if (!this.#leading) return;
    const { parts } = this.d;
    this.#leading = false;
    parts.logger.warn({ bootId: this.d.bootId }, "this instance no longer leads; another takes over");
    await this.#shares?.unlead();
    await parts.sender.stop();
    await stopGateways(parts, holdsConnection);
  }

  /**
   * What a previous process left: recovered here (one instance; the inbox ids it scheduled go in
   * `known`), or (several) the threads nobody holds that have work, left by any instance.
   */
  async recoverAtStart(known: Set<number>): Promise<void> {
    const { parts, turns, approvals } = this.d;
    if (this.d.coordination.shared) {
      await this.d.ownership.sweep();
      return;
    }
    const ids = await recover(parts, turns, approvals, { bootId: this.d.bootId, ownsRun: this.d.ownsRun });
    for (const id of ids) known.add(id);
  }

  /**
   * Several instances: the periodic look for work nobody took, and approval expiry. On the leader,
   * a look that finds nothing old enough to take puts the next one off by 2, 4, then 8 periods;
   * found work brings it back to every period. The others look every 16th period only, and only
   * while they hold a thread (the leader's looks find what theirs would; one at rest reads
   * nothing), and a new leader looks within a period. Messages younger than one period are left to
   * whoever recorded or holds their thread. The task is timed to its next look, not woken
   * every period to count periods off: an instance at rest that does not lead wakes for it once in
   * 16 periods, where it woke 16 times (#45.3, idle).
   */
  upkeep(sweepMs: number): void {
    let skip = 0;
    /** Set while a look runs by a lead taken meanwhile: the next look is a period after it. */
    let soon = false;
    this.#sweepSoon = () => {
      skip = 0;
      soon = true;
      this.d.scheduler.hurry(SWEEP_TASK, sweepMs);
    };
    const task = async () => {
      soon = false;
      if (!this.#leading && !this.d.ownership.holdsAny) return FOLLOWER_SWEEP_PERIODS * sweepMs;
      const found = await this.d.ownership.sweep(sweepMs);
      if (!this.#leading) skip = FOLLOWER_SWEEP_PERIODS - 1;
      else skip = found ? 0 : Math.min(MAX_IDLE_SWEEP_SKIP, skip * 2 + 1);
      return soon ? sweepMs : (skip + 1) * sweepMs;
    };
    // A failed look is tried again a period later, as every period looked before.
    this.d.scheduler.schedule(SWEEP_TASK, sweepMs, task, { retryMs: sweepMs });
    this.expireEvery();
  }

  /** Takes the stored state of one thread into this instance. */
  async adopt(gateway: string, thread: string): Promise<void> {
    await recover(this.d.parts, this.d.turns, this.d.approvals, {
      bootId: this.d.bootId,
      ownsRun: this.d.ownsRun,
      threads: { gateway, thread },
      shared: false,
    });
  }

  /** Hears the other instances, and what this one loses; returns the unsubscribe. */
  join(): () => void {
    const { coordination, ownership } = this.d;
    const unsubscribe = coordination.subscribe((m) => this.onCluster(m), {
      wantsHeld: (threadId) => this.#wantsHeld(threadId),
    });
    const unlost = coordination.onThreadsLost((keys) => ownership.lost(keys));
    return () => {
      unsubscribe();
      unlost();
    };
  }

  /**
   * A decision for a request of another instance's thread: the run waits at rest, or is being let
   * go by the instance that ran it, so this one takes the thread; busy while it cannot.
   */
  async claimForDecision(requestId: string): Promise<DecideResult | undefined> {
    if (!this.d.coordination.shared) return undefined;
    const rec = await this.d.parts.store.interactions.get(requestId);
    if (!rec || (await this.d.ownership.claimSoon(rec.gateway, rec.thread))) return undefined;
    return {
      ok: false,
      code: "busy",
      message: `the thread of "${requestId}" is running on another instance; try again shortly`,
    };
  }

  /**
   * A thread announcement its recorder found held elsewhere is looked at only by the holder, or by
   * one that let the thread go a moment ago (it may have let it go as the message was recorded;
   * otherwise the message waits for the sweep): the others would each try a lock it holds.
   */
  #wantsHeld(threadId: string): boolean {
    const { ownership } = this.d;
    return ownership.holds(threadId) || ownership.recentlyLet.has(threadId);
  }

  /** What another instance (or this one) announced. */
  onCluster(message: ClusterMessage): void {
    const { parts } = this.d;
    // Whoever sends (the leader, helpers with a backlog) looks; a sender not running ignores it.
    if (message.kind === "outbox") this.#remoteOutboxWake();
    if (message.kind === "outbox-help") {
      if (message.helping) this.#shares?.helping();
      else this.#shares?.help();
    }
    if (message.kind !== "thread" || !parts.registry.get(message.gateway)) return;
    const threadId = gatewayThreadId(message.gateway, message.thread);
    if (message.held && !this.#wantsHeld(threadId)) return;
    // The record announced was taken here already (read with an earlier look): nothing to read for it.
    if (
      message.id !== undefined &&
      parts.threads.peek(message.gateway, message.thread)?.taken.has(message.id)
    )
      return;
    parts.track(this.d.ownership.poke(message.gateway, message.thread, carriedOf(message)));
  }
}

/** The record an announcement carries, as the thread's queue holds it, with the ids it must follow. */
function carriedOf(message: ClusterMessage & { kind: "thread" }): Carried | undefined {
  const { id, record, prior } = message;
  if (id === undefined || !record || !Array.isArray(prior)) return undefined;
  const msg: QueuedMessage = { inboxId: id, text: record.text, origin: record.origin };
  if (record.attachments?.length) msg.attachments = record.attachments;
  return { msg, prior };
}
