// ThreadLocks: one turn at a time per conversation thread across instances. `tryLock(key)` takes
// the session-level advisory lock `agentsvc:thread:<key>` on the instance's InstanceLink (build
// the key with `threadKey(gateway, thread)`); `unlock(key)` releases it.
//
// A lock is held by the link's connection, not by a row or a transaction: it survives nothing but
// the process and its connection. It is released by `unlock`, by the process dying (the kernel
// closes the socket) and by the connection dropping for any other reason, in which case `onLost`
// callbacks run and the holder must treat the turn as no longer exclusive. It is not a fencing
// token: a holder that has not yet noticed a drop may still be working while another instance
// takes the lock, so writes that must happen once are also guarded by their rows (claims, unique
// keys) — the database row stays the source of truth. `assertHeld` asks the server, not this
// process: called inside a transaction after it has locked the rows it writes, it is a fence (an
// instance that took the thread over reads those rows only once that transaction has ended).
import type { SessionLock } from "./incarnation.js";
import { advisoryKeyText, KEY_PREFIX, threadLockName } from "./keys.js";
import type { InstanceLink } from "./link.js";

/** Make one per InstanceLink (each subscribes to the link's lost reports for the link's lifetime). */
export class ThreadLocks {
  readonly #link: InstanceLink;
  readonly #lost = new Set<(keys: string[]) => void>();
  readonly #prefix = `${KEY_PREFIX}thread:`;

  constructor(link: InstanceLink) {
    this.#link = link;
    link.onLost(({ names }) => {
      const keys = names.filter((n) => n.startsWith(this.#prefix)).map((n) => n.slice(this.#prefix.length));
      if (keys.length === 0) return;
      for (const listener of [...this.#lost]) listener(keys);
    });
  }

  /**
   * True when this instance now holds the thread's lock. False when another instance holds it,
   * this instance already holds it (not re-entrant: a second local turn waits too), or the link is
   * down. `onLost` runs if the link's connection drops while it is held.
   */
  tryLock(key: string, options: { onLost?: () => void } = {}): Promise<boolean> {
    return this.#link.tryLock(threadLockName(key), options.onLost);
  }

  /**
   * `tryLock`, and when another instance holds the thread's lock, `notify` (a NOTIFY, e.g. a Bus
   * message to the holder: `bus.channel` and `busPayload(message)`) sent in the same statement.
   * `notified`: held elsewhere, the NOTIFY committed; `not-taken`: nothing sent (see
   * InstanceLink.tryLockOrNotify).
   */
  tryLockOrNotify(
    key: string,
    notify: { channel: string; payload: string },
    options: { onLost?: () => void } = {},
  ): Promise<"taken" | "notified" | "not-taken"> {
    return this.#link.tryLockOrNotify(threadLockName(key), notify, options.onLost);
  }

  /** Releases the thread's lock. False when this instance did not hold it (or lost it with the connection). */
  unlock(key: string): Promise<boolean> {
    return this.#link.unlock(threadLockName(key));
  }

  /**
   * Resolves when the server says this link's session holds the thread's lock now (`pg_locks`);
   * rejects with `ThreadLockLostError` when it does not: the lock was given back, or the connection
   * that held it is gone, even if this process has not noticed yet.
   */
  async assertHeld(key: string): Promise<void> {
    const name = threadLockName(key);
    // Stryker disable next-line ConditionalExpression,CallExpression: a shortcut only: holdsOnServer answers false, sending nothing, for a lock the link does not count as held
    if (!this.#link.isHeld(name)) throw new ThreadLockLostError(key);
    let held: boolean;
    try {
      // Shares one statement with the other threads' lock requests waiting on the link.
      held = await this.#link.holdsOnServer(name);
    } catch (error) {
      throw new ThreadLockLostError(key, error);
    }
    if (!held) throw new ThreadLockLostError(key);
  }

  /**
   * What a statement on another connection checks to know this link's session still holds the
   * thread's lock, with no round trip on the link: the lock's key (decimal) and the session's
   * incarnation (incarnation.ts; `pid` names it in messages). A fence folded into that statement
   * (evaluated after it has locked its rows, like `assertHeld`) asks the lock manager two things, each
   * in O(1): someone holds the key exclusively (`NOT pg_try_advisory_xact_lock_shared(key)`), and this
   * session is still alive (its incarnation lock is held). That is "this session holds it" because
   * the link never gives a lock back behind its holder's back: a lock leaves this session by `unlock`
   * (the caller's own, which must not come while a fence it asked for may still be evaluated:
   * session-core lets a thread go only with no turn of it ending) or with the session itself, and
   * then its incarnation goes too. Throws `ThreadLockLostError` when this instance does not count it
   * as held.
   */
  heldLock(key: string): SessionLock {
    const name = threadLockName(key);
    const pid = this.#link.backendPid;
    const incarnation = this.#link.incarnation;
    if (!this.#link.isHeld(name) || pid === undefined || incarnation === undefined)
      throw new ThreadLockLostError(key);
    return { pid, key: advisoryKeyText(name), incarnation };
  }

  /**
   * What a statement on another connection needs to ask whether another session holds the thread's
   * lock (an announcement to the holder folded into the statement that recorded the message: no
   * lock request on the link): the lock's key (decimal), with this link's session as `heldLock`
   * names it. Undefined while the link is down.
   */
  lockOf(key: string): SessionLock | undefined {
    const pid = this.#link.backendPid;
    const incarnation = this.#link.incarnation;
    if (pid === undefined || incarnation === undefined || !this.#link.connected) return undefined;
    return { pid, key: advisoryKeyText(threadLockName(key)), incarnation };
  }

  /**
   * Whether any instance (this one included) holds the thread's lock now, asked of the server in a
   * statement shared with the other lock requests. A hint: it may be taken or let go right after.
   * Rejects when the link is down.
   */
  heldAnywhere(key: string): Promise<boolean> {
    return this.#link.heldAnywhere(threadLockName(key));
  }

  /** Whether this instance holds the thread's lock now. */
  isHeld(key: string): boolean {
    return this.#link.isHeld(threadLockName(key));
  }

  /** Runs with the keys of every thread lock lost when the link's connection dropped. */
  onLost(listener: (keys: string[]) => void): () => void {
    this.#lost.add(listener);
    return () => this.#lost.delete(listener);
  }
}

/** This instance does not hold the thread's lock (any more): another instance may run the thread. */
export class ThreadLockLostError extends Error {
  constructor(key: string, cause?: unknown) {
    super(
      `thread ${key}: this instance no longer holds its lock`,
      cause === undefined ? undefined : { cause },
    );
    this.name = "ThreadLockLostError";
  }
}
