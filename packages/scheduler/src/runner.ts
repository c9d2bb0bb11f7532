// Runs a project's schedules. Each tick is claimed durably before its turn starts (one row per
// schedule + tick time: of several instances exactly one insert wins), then its prompt is recorded
// in the gateway session's inbox under the dedup key `schedule:<name>:<tick ms>` and the turn runs
// and replies like any message: through the outbox, with its retries and dead letters. Recovery
// (every pass, on every instance) records claimed ticks nobody recorded yet; the inbox's unique
// dedup key makes a second recording of one tick a duplicate, so a tick runs once.
import { fault } from "@agentsvc/agent-core";
import type { DeliverResult, Inbound } from "@agentsvc/session-core";
import {
  type Reminder,
  type ReminderStore,
  reminderIdOf,
  reminderName,
  reminderPrompt,
} from "./reminders.js";
import { latestTick, TickClock } from "./ticks.js";

export interface ScheduleDef {
  name: string;
  /** The agent file name a chat page target's turn runs on (absent: the root agent). */
  agent?: string;
  cron?: string;
  everyMs?: number;
  /** A one-off tick (epoch ms): a reminder set for one time. */
  at?: number;
  timezone: string;
  prompt: string;
  /**
   * A push gateway's registry key (its type) and the platform thread; `subject` (e-mail: a new
   * message's subject) and `template` (WhatsApp: the approved template the reply goes in) reach the
   * adapter as the run's origin meta, `scheduled`. Or a chat page's user conversation (`page`).
   */
  to: GatewayTarget | PageTarget;
  enabled: boolean;
  catchUp: "none" | "last";
}

export interface GatewayTarget {
  gateway: string;
  thread: string;
  subject?: string;
  template?: { name: string; language: string };
  // A project's target may hold other keys its adapter's `scheduleTarget` read (config-schema
  // spreads them in); all of them reach the adapter in `meta.scheduled`.
}

/** A chat page (webui entry) user's conversation: the turn runs there, no gateway involved. */
export interface PageTarget {
  page: string;
  /** The account's username; absent: the page's shared workspace. */
  user?: string;
  conversation: string;
}

export type TickOutcome = "claimed" | "recorded" | "delivered" | "dead" | "failed" | "silent";

export interface StoredTick {
  schedule: string;
  tickAt: number;
  manual: boolean;
  inboxId: number | null;
  outcome: TickOutcome;
  /** The instance that claimed it, and when (a chat page tick is re-run only by its instance, or after a lease). */
  instance?: string;
  claimedAt?: number;
}

/** What the runner needs of the store (chat-store's `ChatDb.scheduleTicks`, on SQLite or PostgreSQL). */
export interface ScheduleStore {
  claim(tick: { schedule: string; tickAt: number; instance: string; manual?: boolean }): Promise<boolean>;
  recorded(schedule: string, tickAt: number, inboxId: number | null): Promise<void>;
  finish(schedule: string, tickAt: number, outcome: TickOutcome, error?: string): Promise<void>;
  open(): Promise<StoredTick[]>;
  last(schedule: string): Promise<StoredTick | undefined>;
  inboxIdOf(gateway: string, dedupKey: string): Promise<number | undefined>;
  delivery(
    gateway: string,
    inboxId: number,
  ): Promise<
    | {
        inboxStatus: string;
        pending: number;
        sent: number;
        dead: number;
        lastError: string | null;
        /** The first reply piece's text (a failed turn's notice to the chat). */
        firstText?: string | null;
      }
    | undefined
  >;
  paused(): Promise<Set<string>>;
}

/** The gateway session's durable ingest (`GatewaySession.deliver`) and which gateways run. */
export interface TickSink {
  deliver(inbound: Inbound & { gateway: string }, options: { operator: true }): Promise<DeliverResult>;
  hasGateway(gateway: string): boolean;
  /**
   * A chat page target's turn: runs `prompt` in the user's conversation; `within` must commit with
   * the turn's messages, given how the turn ended (it finishes the tick with that outcome, so a turn
   * that persisted is never run again, and a failed one is never read as delivered). Absent: chat
   * page targets fail (no page is served).
   */
  runPage?(tick: {
    schedule: string;
    agent?: string;
    target: PageTarget;
    prompt: string;
    within: (ended: PageEnding) => Promise<void>;
  }): Promise<PageEnding | { suspended: true }>;
}

/** How a chat page turn ended: its reply's text, or why it failed. */
export type PageEnding = { text: string } | { error: string };

export interface SchedulerObserver {
  /** A tick ended: delivered, dead (its reply dead-lettered), failed (turn or recording), silent (no reply). */
  onOutcome?(schedule: string, outcome: Exclude<TickOutcome, "claimed" | "recorded">): void;
  /** Seconds between a tick's time and its message being recorded. */
  onLateness?(schedule: string, seconds: number): void;
}

interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ScheduleRunnerOptions {
  schedules: ScheduleDef[];
  store: ScheduleStore;
  sink: TickSink;
  /** This instance's name in claim rows (host and pid by default in the server). */
  instance: string;
  logger: Logger;
  observer?: SchedulerObserver;
  /** The clock (tests move it by hand). */
  now?: () => number;
  /** Milliseconds between two passes when started with `loop` (default 1 000). */
  pollMs?: number;
  /** Reminders set with the remind tool (chat-store's `ChatDb.reminders`): read at every pass. */
  reminders?: ReminderStore;
}

export const dedupKeyOf = (schedule: string, tickAt: number) => `schedule:${schedule}:${tickAt}`;

export class ScheduleRunner {
  readonly #o: ScheduleRunnerOptions;
  readonly #now: () => number;
  readonly #clocks = new Map<string, TickClock>();
  readonly #defs = new Map<string, ScheduleDef>();
  /** Per schedule: ticks up to this time were looked at. */
  readonly #cursor = new Map<string, number>();
  /** Per schedule: its next tick after the cursor (cached; recomputed when passed). */
  readonly #next = new Map<string, number | undefined>();
  /** Chat page ticks whose turn runs in this process. */
  readonly #pageRuns = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #passing: Promise<void> | undefined;
  #stopped = false;

  constructor(options: ScheduleRunnerOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    for (const s of options.schedules) {
      this.#defs.set(s.name, s);
      this.#clocks.set(s.name, new TickClock(s));
    }
  }

  /**
   * Catches up (`catchUp: last` runs the newest tick missed since the schedule's last tick; `none`
   * skips them), then runs one pass (which also recovers claimed, unrecorded ticks). With `loop`,
   * passes follow every `pollMs` until `stop()`.
   */
  async start(options: { loop?: boolean } = {}): Promise<void> {
    const now = this.#now();
    for (const s of this.#defs.values()) {
      this.#cursor.set(s.name, now);
      if (!s.enabled || s.catchUp !== "last") continue;
      const last = await this.#o.store.last(s.name);
      if (!last) continue;
      const missed = latestTick(this.#clocks.get(s.name)!, last.tickAt, now);
      if (missed !== undefined && !(await this.#o.store.paused()).has(s.name)) {
        this.#o.logger.info(
          { schedule: s.name, tickAt: new Date(missed).toISOString() },
          "schedule: catching up the last missed tick",
        );
        await this.#claimAndRecord(s, missed, false);
      }
    }
    await this.pass();
    if (options.loop) this.#arm();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#passing;
  }

  /** Names and definitions, for the CLI and the server. */
  get schedules(): ScheduleDef[] {
    return [...this.#defs.values()];
  }

  /** The next tick of a schedule after `afterMs` (default now). */
  nextTick(name: string, afterMs = this.#now()): number | undefined {
    return this.#clocks.get(name)?.next(afterMs);
  }

  /** One pass: due ticks claimed and recorded, claimed ticks recovered, recorded ticks' outcomes read. */
  pass(): Promise<void> {
    const run = (this.#passing ?? Promise.resolve()).then(() => this.#pass());
    this.#passing = run.catch(() => {});
    return run;
  }

  async #pass(): Promise<void> {
    if (this.#o.reminders) await this.#syncReminders();
    const now = this.#now();
    const paused = await this.#o.store.paused();
    const work: (() => Promise<void>)[] = [];
    for (const s of this.#defs.values()) {
      if (!s.enabled) continue;
      const cursor = this.#cursor.get(s.name) ?? now;
      let next = this.#next.has(s.name) ? this.#next.get(s.name) : this.#clocks.get(s.name)!.next(cursor);
      if (next === undefined || next > now) {
        this.#next.set(s.name, next);
        continue;
      }
      const due = this.#clocks.get(s.name)!.between(cursor, now, 1);
      this.#cursor.set(s.name, now);
      next = this.#clocks.get(s.name)!.next(now);
      this.#next.set(s.name, next);
      // A paused schedule's ticks pass by unclaimed; resume starts at the next one.
      if (paused.has(s.name)) continue;
      for (const tickAt of due) work.push(() => this.#claimAndRecord(s, tickAt, false));
    }
    await pool(work);
    // A one-off reminder is done once its tick is claimed (here, or by another instance or run),
    // or passed by while it was paused.
    for (const s of [...this.#defs.values()]) {
      if (s.at === undefined || s.at > now) continue;
      await this.#o.reminders?.end(reminderIdOf(s.name)!, "done");
      this.#forget(s.name);
    }
    await this.#recover();
  }

  /**
   * Active reminders join the schedules, ended ones leave (their open ticks are still recovered).
   * A reminder first seen by this process catches up its newest tick since it was set: a one-off due
   * while no instance ran fires late, once; a recurring one runs its last missed tick (an already
   * claimed tick is not claimed again).
   */
  async #syncReminders(): Promise<void> {
    const active = await this.#o.reminders!.active();
    const seen = new Set<string>();
    const now = this.#now();
    for (const r of active) {
      const def = reminderDef(r);
      seen.add(def.name);
      if (this.#defs.has(def.name)) continue;
      const clock = new TickClock(def);
      this.#defs.set(def.name, def);
      this.#clocks.set(def.name, clock);
      // A one-off's only tick, or a recurring one's newest tick since it was set, may be due now.
      const missed = r.at !== null ? (r.at <= now ? r.at : undefined) : latestTick(clock, r.createdAt, now);
      this.#cursor.set(def.name, missed === undefined ? now : missed - 1);
      this.#next.delete(def.name);
    }
    for (const name of this.#defs.keys()) {
      if (reminderIdOf(name) !== undefined && !seen.has(name)) this.#forget(name);
    }
  }

  #forget(name: string): void {
    this.#defs.delete(name);
    this.#clocks.delete(name);
    this.#cursor.delete(name);
    this.#next.delete(name);
  }

  /** A schedule by name: the project's, an active reminder, or an ended reminder with an open tick. */
  async #defOf(name: string): Promise<ScheduleDef | undefined> {
    const known = this.#defs.get(name);
    if (known) return known;
    const id = reminderIdOf(name);
    if (id === undefined || !this.#o.reminders) return undefined;
    const r = await this.#o.reminders.get(id);
    return r && reminderDef(r);
  }

  async #claimAndRecord(s: ScheduleDef, tickAt: number, manual: boolean): Promise<void> {
    const won = await this.#o.store.claim({ schedule: s.name, tickAt, instance: this.#o.instance, manual });
    if (won) fault("schedule-claimed");
    if (won) await this.#record(s, tickAt);
  }

  /** Claimed ticks not recorded yet (a crash, another instance's crash, `agentsvc schedules run`), and recorded ones not finished. */
  async #recover(): Promise<void> {
    const work: (() => Promise<void>)[] = [];
    for (const t of await this.#o.store.open()) {
      const s = await this.#defOf(t.schedule);
      if (!s) continue; // a schedule removed from the project: its rows stay as they are
      if (t.outcome === "claimed") {
        // A pause stops ticks not claimed yet; a tick claimed before it landed is finished (its
        // claim is its start: only a crash leaves one unrecorded for longer than a moment).
        // A chat page tick another instance claimed may be running its turn there: it is taken
        // over only after a lease (that instance died), or when the CLI queued it.
        const foreign = t.instance !== undefined && t.instance !== this.#o.instance && t.instance !== "cli";
        if ("page" in s.to && foreign && this.#now() - (t.claimedAt ?? 0) < PAGE_LEASE_MS) continue;
        work.push(() => this.#record(s, t.tickAt));
      } else work.push(() => this.#settle(s, t));
    }
    await pool(work);
  }

  async #record(s: ScheduleDef, tickAt: number): Promise<void> {
    if ("page" in s.to) return this.#runPage(s, s.to, tickAt);
    const to = s.to;
    const { logger, store, sink } = this.#o;
    const log = { schedule: s.name, tickAt: new Date(tickAt).toISOString(), gateway: to.gateway };
    if (!sink.hasGateway(to.gateway)) {
      const error = `gateway "${to.gateway}" is not running`;
      await store.finish(s.name, tickAt, "failed", error);
      logger.error({ ...log, error }, "schedule: tick failed, its target cannot be reached");
      this.#o.observer?.onOutcome?.(s.name, "failed");
      return;
    }
    const dedupKey = dedupKeyOf(s.name, tickAt);
    let result: DeliverResult;
    try {
      result = await sink.deliver(
        {
          gateway: to.gateway,
          dedupKey,
          thread: to.thread,
          text: s.prompt,
          ...scheduledMeta(to),
          author: {
            id: `schedule:${s.name}`,
            displayName: `${s.at !== undefined || reminderIdOf(s.name) ? "reminder" : "schedule"} ${s.name}`,
          },
        },
        { operator: true },
      );
    } catch (err) {
      // Left claimed: the next pass tries again.
      logger.warn({ ...log, err }, "schedule: recording the tick failed; retrying on the next pass");
      return;
    }
    const inboxId = result.accepted ? result.id : await store.inboxIdOf(to.gateway, dedupKey);
    await store.recorded(s.name, tickAt, inboxId ?? null);
    if (result.accepted) {
      this.#o.observer?.onLateness?.(s.name, Math.max(0, this.#now() - tickAt) / 1000);
      logger.info({ ...log, inboxId }, "schedule: tick recorded");
    }
  }

  /**
   * A chat page tick: the turn runs in the user's conversation and finishes the tick in the turn's
   * own transaction, so a turn that persisted is never run again; one that did not (a crash) is run
   * again by recovery. A tick running here is not started twice by this process's next passes.
   */
  async #runPage(s: ScheduleDef, to: PageTarget, tickAt: number): Promise<void> {
    const { logger, store, sink } = this.#o;
    const key = `${s.name}\0${tickAt}`;
    if (this.#pageRuns.has(key)) return;
    const log = { schedule: s.name, tickAt: new Date(tickAt).toISOString(), page: to.page };
    // The failure `within` wrote with the turn: the same error back from runPage is that turn, its
    // tick finished already. Another one (no turn ran, or its commit failed after `within`) is not.
    let written: string | undefined;
    const fail = async (error: string) => {
      if (error !== written) await store.finish(s.name, tickAt, "failed", error);
      logger.error({ ...log, error }, "schedule: tick failed, its target cannot be reached");
      this.#o.observer?.onOutcome?.(s.name, "failed");
    };
    if (!sink.runPage) return fail(`chat page "${to.page}" is not served`);
    this.#pageRuns.add(key);
    try {
      this.#o.observer?.onLateness?.(s.name, Math.max(0, this.#now() - tickAt) / 1000);
      const result = await sink.runPage({
        schedule: s.name,
        ...(s.agent !== undefined ? { agent: s.agent } : {}),
        target: to,
        prompt: s.prompt,
        // The turn's own outcome, in its transaction: a failed turn's messages persist too, and
        // "delivered" there would stand until the failure below (or forever after a crash).
        within: async (ended) => {
          if (!("error" in ended))
            return store.finish(s.name, tickAt, ended.text.trim() ? "delivered" : "silent");
          await store.finish(s.name, tickAt, "failed", ended.error);
          written = ended.error;
        },
      });
      if ("error" in result) return fail(result.error);
      // Waiting for an approval: the turn finishes the tick when it ends; recovery leaves it alone.
      if ("suspended" in result) return store.recorded(s.name, tickAt, null);
      logger.info({ ...log, conversation: to.conversation }, "schedule: tick delivered to the chat page");
      this.#o.observer?.onOutcome?.(s.name, result.text.trim() ? "delivered" : "silent");
    } catch (err) {
      // Left claimed: recovery runs it again (the turn did not persist, or the tick would be finished).
      logger.warn({ ...log, err }, "schedule: the chat page turn failed to run; retrying on the next pass");
    } finally {
      this.#pageRuns.delete(key);
    }
  }

  async #settle(s: ScheduleDef, t: StoredTick): Promise<void> {
    if (t.inboxId === null || "page" in s.to) return;
    const to = s.to;
    const d = await this.#o.store.delivery(to.gateway, t.inboxId);
    if (!d || d.inboxStatus === "queued" || d.inboxStatus === "running" || d.pending > 0) return;
    const log = { schedule: s.name, tickAt: new Date(t.tickAt).toISOString(), gateway: to.gateway };
    let outcome: "delivered" | "dead" | "failed" | "silent";
    let error: string | undefined;
    if (d.dead > 0) {
      outcome = "dead";
      error = d.lastError ?? "the platform refused the reply";
    } else if (d.inboxStatus !== "done") {
      outcome = "failed";
      // The notice the chat got says why (a spent budget, the model unavailable, ...).
      const told = d.firstText ? `: the chat was told "${d.firstText.slice(0, 300)}"` : "";
      error = `the turn ended ${d.inboxStatus}${told}`;
    } else outcome = d.sent > 0 ? "delivered" : "silent";
    await this.#o.store.finish(s.name, t.tickAt, outcome, error);
    if (error)
      this.#o.logger.error(
        { ...log, error },
        `schedule: tick ${outcome}: its reply did not reach ${to.gateway}`,
      );
    this.#o.observer?.onOutcome?.(s.name, outcome);
  }

  #arm(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.pass()
        .catch((err: unknown) => this.#o.logger.error({ err }, "schedule: pass failed"))
        .finally(() => this.#arm());
    }, this.#o.pollMs ?? 1_000);
    this.#timer.unref();
  }
}

/**
 * What the target's adapter reads from the run's origin: `meta.scheduled`, every key its
 * `scheduleTarget` added to the target (e-mail's subject, WhatsApp's template, a third-party
 * adapter's own), i.e. all but gateway and thread.
 */
function scheduledMeta(to: GatewayTarget): { meta?: Record<string, unknown> } {
  const scheduled = Object.fromEntries(
    Object.entries(to).filter(([key, value]) => key !== "gateway" && key !== "thread" && value !== undefined),
  );
  return Object.keys(scheduled).length > 0 ? { meta: { scheduled } } : {};
}

/** The schedule a reminder runs as: back to its thread, its text as the tick's message. */
function reminderDef(r: Reminder): ScheduleDef {
  return {
    name: reminderName(r.id),
    ...(r.at !== null ? { at: r.at } : { cron: r.cron! }),
    timezone: r.timezone,
    prompt: reminderPrompt(r),
    to: { gateway: r.gateway, thread: r.thread },
    enabled: true,
    catchUp: "last",
  };
}

/** How long a chat page tick claimed by another instance is left to it before recovery runs it here. */
const PAGE_LEASE_MS = 10 * 60_000;

/** Ticks of one pass side by side, a bounded number at a time (many schedules due in one minute). */
const CONCURRENCY = 32;

async function pool(work: (() => Promise<void>)[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, work.length) }, async () => {
      for (let i = next++; i < work.length; i = next++) await work[i]!();
    }),
  );
}
