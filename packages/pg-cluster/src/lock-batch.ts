// Advisory-lock requests on one link, grouped: requests made while one statement is in flight wait
// for it, then go together in one statement (take, give back, or ask whether the session holds a
// lock, each row its own key). node-postgres sends a connection's statements one after another, so
// without this every thread's take, fence and release queued behind the others one round trip each;
// now a burst of turns shares them. A request on an idle link goes at once, alone.
//
// Each answer is the server's answer for that key, as a lone statement would give it: keys in one
// statement are distinct (a second request for a key waits for the next statement, keeping the
// order of requests per key), so its rows do not depend on each other. A statement sent after a
// request was made is evaluated after it, which is what a fence needs (its row locks came first).
//
// A statement the server refuses (one key's take finding the lock table full, a cancel) fails for
// every request in it, so each is asked again alone: one key's failure reaches only its caller
// (before, a fence riding with it was refused as if the lock were lost, with no dropped connection:
// #45.5). A take goes again as `retake`: session advisory locks outlive the statement that failed,
// so the take may already hold its lock. A give-back is answered true: the failed statement may have
// given the lock back already (it stays given back), so the one asked again finds it gone, where a
// statement of its own would have answered true (the link gives back only locks it counts held).

/**
 * What a request asks of the server for its key (`busy`: held by any session, this one or another;
 * `retake`: held by this session already, or taken now; `lock-or-notify`: a take that, when another
 * session holds the lock, sends its NOTIFY in the same statement; `unlock-notify`: a give-back that,
 * when it gave the lock back, sends its NOTIFY in the same statement).
 */
export type LockOp = "lock" | "unlock" | "held" | "busy" | "retake" | "lock-or-notify" | "unlock-notify";

/** The NOTIFY of a `lock-or-notify` request. */
export interface LockNotify {
  channel: string;
  payload: string;
}

/**
 * Runs one statement for `ops[i]` on `keys[i]` (distinct keys; `notifies[i]` for a
 * `lock-or-notify`, null for the others); returns the keys answered true.
 */
export type SendLockOps = (
  ops: LockOp[],
  keys: string[],
  notifies: (LockNotify | null)[],
) => Promise<Set<string>>;

/** A `lock-or-notify`'s answer: taken, or not taken and the NOTIFY sent (committed with the statement). */
export type LockOrNotify = "taken" | "notified" | "not-taken";

/**
 * An `unlock-notify`'s answer: given back and the NOTIFY sent; `released`: given back (as far as
 * the link can tell) with nothing sent (a failed statement, asked again as a plain give-back);
 * `not-held`: the server did not hold it for this session, nothing sent.
 */
export type UnlockAndNotify = "notified" | "released" | "not-held";

interface Waiting {
  op: LockOp;
  key: string;
  notify?: LockNotify;
  /** `sent`: the request went in a statement that answered, as asked (not asked again as something else). */
  resolve(ok: boolean, sent: LockOp): void;
  reject(error: unknown): void;
}

/** Keeps a statement's arrays (and its answer) small. */
const MAX_KEYS = 1000;

/** A request of a failed statement, asked again alone (see the top of the file). */
function again(w: Waiting): Waiting {
  // A take with a NOTIFY asked again takes only: its caller announces by itself if it is not taken.
  if (w.op === "lock" || w.op === "lock-or-notify")
    return { op: "retake", key: w.key, resolve: w.resolve, reject: w.reject };
  if (w.op === "unlock") return { ...w, resolve: () => w.resolve(true, "unlock") };
  // A give-back with a NOTIFY asked again gives back only: its caller announces by itself.
  if (w.op === "unlock-notify")
    return { op: "unlock", key: w.key, resolve: () => w.resolve(true, "unlock"), reject: w.reject };
  return w;
}

export class LockBatch {
  #waiting: Waiting[] = [];
  #flushing = false;

  constructor(private readonly send: SendLockOps) {}

  /** `key` is the advisory key as a decimal string. */
  request(op: Exclude<LockOp, "lock-or-notify" | "unlock-notify">, key: string): Promise<boolean> {
    return new Promise((resolve, reject) => this.#add({ op, key, resolve, reject }));
  }

  /**
   * Takes the lock of `key`, or, when another session holds it, sends `notify` in the same
   * statement (one round trip for a take that fails and the announcement that follows it).
   * `not-taken`: not taken and nothing sent (the statement failed and the take was asked again).
   */
  lockOrNotify(key: string, notify: LockNotify): Promise<LockOrNotify> {
    return this.#withNotify("lock-or-notify", key, notify, (ok, sent) =>
      ok ? "taken" : sent ? "notified" : "not-taken",
    );
  }

  /**
   * Gives the lock of `key` back and, when it was given back, sends `notify` in the same statement
   * (one round trip for a release and its announcement).
   */
  unlockAndNotify(key: string, notify: LockNotify): Promise<UnlockAndNotify> {
    return this.#withNotify("unlock-notify", key, notify, (ok, sent) =>
      !ok ? "not-held" : sent ? "notified" : "released",
    );
  }

  /**
   * A request carrying a NOTIFY, answered from the server's answer and `sent`: whether it went with
   * its NOTIFY (not asked again without it after a failed statement).
   */
  #withNotify<T>(
    op: "lock-or-notify" | "unlock-notify",
    key: string,
    notify: LockNotify,
    answer: (ok: boolean, sent: boolean) => T,
  ): Promise<T> {
    return new Promise((resolve, reject) =>
      this.#add({ op, key, notify, resolve: (ok, asked) => resolve(answer(ok, asked === op)), reject }),
    );
  }

  #add(w: Waiting): void {
    this.#waiting.push(w);
    if (!this.#flushing) {
      this.#flushing = true;
      // A microtask, not a timer: requests made in the same tick share the first statement.
      queueMicrotask(() => void this.#flush());
    }
  }

  async #flush(): Promise<void> {
    try {
      while (this.#waiting.length > 0) await this.#run(this.#take());
    } finally {
      this.#flushing = false;
    }
  }

  /** The oldest requests up to the first key already among them. */
  #take(): Waiting[] {
    const keys = new Set<string>();
    let n = 0;
    for (const w of this.#waiting) {
      if (keys.has(w.key) || n >= MAX_KEYS) break;
      keys.add(w.key);
      n++;
    }
    return this.#waiting.splice(0, n);
  }

  async #run(batch: Waiting[]): Promise<void> {
    let yes: Set<string>;
    try {
      yes = await this.send(
        batch.map((w) => w.op),
        batch.map((w) => w.key),
        batch.map((w) => w.notify ?? null),
      );
    } catch (error) {
      if (batch.length === 1) return (batch[0] as Waiting).reject(error);
      // Each alone, before the next statement: the order of requests per key is kept.
      for (const w of batch) await this.#run([again(w)]);
      return;
    }
    for (const w of batch) w.resolve(yes.has(w.key), w.op);
  }
}
