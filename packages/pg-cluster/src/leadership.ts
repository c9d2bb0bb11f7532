// Leadership: exactly one instance at a time runs each push-style connection (a Telegram
// long-poll, a Slack or Discord socket, an IMAP poll, the Signal stream). Every instance calls
// `lead(name, ...)`; each tries `pg_try_advisory_lock` on `agentsvc:leader:<name>` over its
// InstanceLink every `retryMs` while it is not the leader. The one that gets the lock runs
// `onAcquired(signal)`; the signal aborts when the lock is lost (the link's connection dropped),
// when the holder resigns, or on `stop()`. When a leader's process dies its session ends, the
// server releases the lock, and another instance takes over within about `retryMs`. With
// `heartbeatMs`, a leader says so every heartbeatMs on the bus, and an instance that hears it for a
// name puts its next try of that name off by `retryMs`: at rest the others send nothing (#45.3).
import { type Bus, busPayload } from "./bus.js";
import { leaderLockName } from "./keys.js";
import type { InstanceLink } from "./link.js";

export interface LeadershipOptions {
  /** How often a non-leader tries the lock, give or take a quarter (jitter). Default 2 000 ms. */
  retryMs?: number;
  /**
   * Announces a lock given back (`stop()`, a resignation) as a `leader-released` message, and tries
   * at once on one from another instance: a handover does not wait for `retryMs`, so `retryMs` can
   * be long (it then bounds only the takeover after a leader died). Start the bus first.
   */
  bus?: Bus;
  /**
   * On `stop()`, how long to wait for the promise `onAcquired` returned to settle (after its signal
   * aborted) before releasing the lock, so the next leader does not overlap the old connection.
   * Default 10 000 ms.
   */
  drainMs?: number;
  /**
   * With `bus`: while this instance leads any name, it announces the names it leads every
   * `heartbeatMs` (`leader-alive`), and a contender hearing one from another instance for its name
   * puts its next try off by `retryMs` (with its jitter). Set `retryMs` above `heartbeatMs / 0.75`,
   * so a live leader's next heartbeat always comes first: the others then try only once a leader
   * went silent (died, or its link is down), within `retryMs` x 1.25 of its last heartbeat. Under
   * the link's `healthCheckMs`, the heartbeat is the leader link's health check and, heard, the
   * others' (InstanceLink counts a NOTIFY heard as an answer). Default: none (try every `retryMs`).
   */
  heartbeatMs?: number;
  /** Told when `onAcquired` throws or rejects, a lock attempt fails, or `onLost` throws. */
  onError?: (error: Error, context: string) => void;
}

export interface LeadHandlers {
  /**
   * Runs when this instance becomes the leader. Start the connection and stop it when `signal`
   * aborts. If it throws or its promise rejects, the instance resigns (releases the lock, so
   * another instance can take over) and contends again after `retryMs`; resolving changes nothing.
   */
  onAcquired(signal: AbortSignal): void | Promise<void>;
  /** Runs when leadership is lost involuntarily (the link dropped); not on `stop()` or a resignation. */
  onLost?(): void;
}

/** How one `lead` contends (`Leadership.lead`'s third argument). */
export interface LeadOptions {
  /**
   * The first try comes this long after `lead()` instead of at once; a release of the name another
   * instance announces meanwhile (with `bus`) is tried at once. For a lock just given up to others
   * that may give it back: in line for their give-back at once, without a try racing theirs for
   * the free lock. Default: try at once.
   */
  tryAfterMs?: number;
}

export interface LeaderHandle {
  readonly name: string;
  /** True from the lock's acquisition until it is lost, resigned or stopped. */
  readonly isLeader: boolean;
  /** Stops contending; if leader, aborts the signal, waits for `onAcquired` (up to `drainMs`), then releases the lock. */
  stop(): Promise<void>;
}

/** The reason an `onAcquired` signal aborts with. */
export class LeadershipEndedError extends Error {
  readonly reason: "lost" | "stopped" | "resigned";
  constructor(name: string, reason: "lost" | "stopped" | "resigned") {
    super(`leadership of "${name}" ${reason === "lost" ? "lost: the PostgreSQL link dropped" : reason}`);
    this.name = "LeadershipEndedError";
    this.reason = reason;
  }
}

/** The bus message kind of a leadership given back; `target` is the leadership's name. */
const RELEASED = "leader-released";
/** The bus message kind of a leader's heartbeat; `names` are the names it leads. */
const ALIVE = "leader-alive";

export class Leadership {
  readonly #link: InstanceLink;
  readonly #options: LeadershipOptions;
  readonly #contenders = new Map<string, Contender>();
  readonly #offReconnect: () => void;
  readonly #offReleased: () => void;
  readonly #offAlive: () => void;
  #heartbeat: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(link: InstanceLink, options: LeadershipOptions = {}) {
    this.#link = link;
    this.#options = options;
    // After a reconnect, try at once instead of waiting for the next tick.
    this.#offReconnect = link.onReconnect(() => {
      for (const c of this.#contenders.values()) c.poke();
    });
    this.#offReleased =
      options.bus?.subscribe(RELEASED, (m, delivery) => {
        if (!delivery.self) this.#contenders.get(m.target)?.poke();
      }) ?? (() => {});
    this.#offAlive =
      options.bus && options.heartbeatMs
        ? options.bus.subscribe(ALIVE, (m) => {
            // Its own heartbeat names only what it leads: nothing to put off here. A name it does
            // not contend for (or not a string) finds no contender.
            // Stryker disable next-line ConditionalExpression: without it, names that are not a list throw in the bus's handler, which reports it: nothing is put off either way
            if (!Array.isArray(m.names)) return;
            for (const name of m.names) this.#contenders.get(name)?.putOff();
          })
        : () => {};
  }

  /**
   * Every heartbeatMs while some name is led here: those names, announced (not while the link is
   * down). Armed when a name is won and not again once none is led: an instance that leads nothing
   * (all but one at rest) has no timer to wake for, where it woke every heartbeatMs to find nothing
   * to say (#45.3, idle). The first heartbeat comes heartbeatMs after the win (a free-running
   * timer's came within heartbeatMs): a contender may try once meanwhile, as it could before.
   */
  #beat(): void {
    const { bus, heartbeatMs } = this.#options;
    if (!bus || !heartbeatMs || this.#stopped || this.#heartbeat) return;
    this.#heartbeat = setTimeout(() => {
      this.#heartbeat = undefined;
      const names = this.leading();
      if (names.length === 0) return;
      const sent = this.#link.connected
        ? // Stryker disable next-line StringLiteral: the names say what it is about; the bus asks a target of every message
          bus.publish({ kind: ALIVE, target: "", names }).catch(() => undefined)
        : Promise.resolve();
      void sent.then(() => this.#beat());
    }, heartbeatMs);
    // An exiting process ends its session: the others notice the silence.
    // Stryker disable next-line CallExpression: only keeps a process alive that would otherwise exit
    this.#heartbeat.unref();
  }

  /** Starts contending for `name` (one `lead` per name per Leadership). */
  lead(name: string, handlers: LeadHandlers, options: LeadOptions = {}): LeaderHandle {
    if (this.#contenders.has(name)) throw new Error(`Leadership.lead: "${name}" is already being led here`);
    const contender = new Contender(
      this.#link,
      name,
      handlers,
      this.#options,
      () => {
        this.#contenders.delete(name);
      },
      () => this.#beat(),
    );
    this.#contenders.set(name, contender);
    if (options.tryAfterMs === undefined) contender.poke();
    else contender.tryIn(options.tryAfterMs);
    return contender;
  }

  /** Names this instance leads now. */
  leading(): string[] {
    return [...this.#contenders.values()].filter((c) => c.isLeader).map((c) => c.name);
  }

  /** Stops every `lead` (see `LeaderHandle.stop`). */
  async stop(): Promise<void> {
    // Stryker disable next-line BooleanLiteral,CallExpression: a heartbeat after stop() finds nothing led (every lead is stopped below): it sends nothing
    this.#stopped = true;
    // Stryker disable next-line CallExpression: see above
    clearTimeout(this.#heartbeat);
    this.#offReconnect();
    this.#offReleased();
    this.#offAlive();
    await Promise.all([...this.#contenders.values()].map((c) => c.stop()));
  }
}

class Contender implements LeaderHandle {
  readonly name: string;
  readonly #lock: string;
  readonly #link: InstanceLink;
  readonly #handlers: LeadHandlers;
  readonly #options: LeadershipOptions;
  readonly #forget: () => void;
  /** Told when the lock is won: the heartbeat starts. */
  readonly #won: () => void;
  #leader = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #attempt: Promise<void> | undefined;
  /**
   * Poked while a try was in flight (a release announced, a reconnect): that try may have been
   * answered before the lock was free, so a failed one is followed by another at once. Dropped, the
   * waiting instance heard the release and still waited its retryMs (15 s in the server).
   */
  #pokedDuring = false;
  #controller: AbortController | undefined;
  #running: Promise<void> | undefined;

  constructor(
    link: InstanceLink,
    name: string,
    handlers: LeadHandlers,
    options: LeadershipOptions,
    forget: () => void,
    won: () => void,
  ) {
    this.name = name;
    this.#lock = leaderLockName(name);
    this.#link = link;
    this.#handlers = handlers;
    this.#options = options;
    this.#forget = forget;
    this.#won = won;
  }

  get isLeader(): boolean {
    return this.#leader;
  }

  /** Tries now unless leader, stopped or already trying. */
  poke(): void {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a redundant try changes nothing: the link answers false for a name it holds or is taking, and #try gives back a lock won after stop()
    if (this.#stopped || this.#leader) return;
    if (this.#attempt) {
      this.#pokedDuring = true;
      return;
    }
    // Stryker disable next-line CallExpression: a timer left running only pokes once more, which the guard above answers
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#attempt = this.#try().finally(() => {
      this.#attempt = undefined;
      if (this.#pokedDuring) this.poke();
    });
  }

  /** The first try `ms` from now (`LeadOptions.tryAfterMs`); a poke meanwhile tries at once. */
  tryIn(ms: number): void {
    this.#timer = setTimeout(() => this.poke(), ms);
  }

  /** Another instance's heartbeat names this lead: the next try waits `retryMs` from now. */
  putOff(): void {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a retry timed for a stopped contender or a leader is refused by poke()'s guard, and a try in flight times its own retry when it fails
    if (this.#stopped || this.#leader || this.#attempt) return;
    this.#schedule();
  }

  async #try(): Promise<void> {
    this.#pokedDuring = false;
    let ok = false;
    // Stryker disable next-line ConditionalExpression: tryLock answers false on a link that is down
    if (this.#link.connected) {
      try {
        ok = await this.#link.tryLock(this.#lock, () => this.#lost());
      } catch (e) {
        this.#report(e, "lock attempt");
      }
    }
    if (this.#stopped) {
      // Won after stop(): given back and announced like any release. Unannounced, an instance whose
      // try failed meanwhile (this one held it) waited for its retry: session-core's outbox
      // partition a helper left as it took its share went unsent until the leader queued for it
      // again, 2-2.5 s (#45.3, the replies' commit -> send p99 of ~2 s on three instances).
      // Stryker disable next-line ConditionalExpression: unlock answers false, sending nothing, for a lock the link does not hold
      if (ok) await this.#release();
      return;
    }
    if (!ok) {
      // A release heard during the try: poke() tries again once this one is over.
      if (!this.#pokedDuring) this.#schedule();
      return;
    }
    this.#leader = true;
    this.#won();
    const controller = new AbortController();
    this.#controller = controller;
    let result: void | Promise<void>;
    try {
      result = this.#handlers.onAcquired(controller.signal);
    } catch (e) {
      result = Promise.reject(e);
    }
    this.#running = Promise.resolve(result).then(
      () => undefined,
      (e: unknown) => {
        this.#report(e, "onAcquired");
        if (this.#controller === controller && this.#leader && !this.#stopped) void this.#resign(controller);
      },
    );
  }

  #lost(): void {
    if (!this.#leader) return;
    this.#leader = false;
    // Stryker disable next-line OptionalChaining: the controller is set whenever #leader is true
    this.#controller?.abort(new LeadershipEndedError(this.name, "lost"));
    try {
      this.#handlers.onLost?.();
    } catch (e) {
      this.#report(e, "onLost");
    }
    // Stryker disable next-line CallExpression: redundant: the link reconnects and its reconnect hook pokes every contender
    this.#schedule();
  }

  async #resign(controller: AbortController): Promise<void> {
    this.#leader = false;
    controller.abort(new LeadershipEndedError(this.name, "resigned"));
    await this.#release();
    this.#schedule();
  }

  /**
   * Gives the lock back and tells the other instances, so one takes it now: the announcement rides
   * in the statement giving the lock back (one round trip less before another instance's try, one
   * statement less), or is published after it when that statement could not carry it.
   */
  async #release(): Promise<void> {
    const { bus } = this.#options;
    const message = { kind: RELEASED, target: this.name };
    let payload: string | undefined;
    try {
      payload = bus && busPayload(message);
    } catch {
      // Too large for a NOTIFY: given back plainly, and the publish below reports why.
    }
    const answer = await (bus && payload !== undefined
      ? this.#link.unlockAndNotify(this.#lock, { channel: bus.channel, payload })
      : this.#link.unlock(this.#lock).then((ok) => (ok ? "released" : "not-held"))
    ).catch((e: unknown) => {
      this.#report(e, "unlock");
      return "not-held" as const;
    });
    if (answer === "released" && bus)
      await bus.publish(message).catch((e: unknown) => this.#report(e, "release announcement"));
  }

  #schedule(): void {
    // Stryker disable next-line ConditionalExpression: a retry after stop() is refused again by poke()'s own guard
    if (this.#stopped) return;
    // Stryker disable next-line CallExpression: no timer is pending here: poke() cleared it, and a leader has none
    clearTimeout(this.#timer);
    // Jitter: instances started together do not all try in the same instant.
    const retryMs = this.#options.retryMs ?? 2_000;
    this.#timer = setTimeout(() => this.poke(), retryMs * (0.75 + Math.random() * 0.5));
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#forget();
    // Stryker disable next-line CallExpression: a pending retry would find the contender stopped (poke()'s guard)
    clearTimeout(this.#timer);
    await this.#attempt;
    // Stryker disable next-line ConditionalExpression: without the lead: the signal already aborted, the work is settled or waited for, and unlock sends nothing
    if (!this.#leader) return;
    this.#leader = false;
    // Stryker disable next-line OptionalChaining: the controller is set whenever #leader is true
    this.#controller?.abort(new LeadershipEndedError(this.name, "stopped"));
    const drainMs = this.#options.drainMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#running,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, drainMs);
      }),
    ]);
    clearTimeout(timer);
    await this.#release();
  }

  #report(e: unknown, context: string): void {
    this.#options.onError?.(
      e instanceof Error ? e : new Error(String(e)),
      `leadership "${this.name}": ${context}`,
    );
  }
}
