// InstanceLink: the one dedicated PostgreSQL connection of one service instance. It is not taken
// from a pool, because it holds session-level advisory locks: a lock belongs to the server session
// of this connection and lives exactly as long as it. When the process dies (even by SIGKILL) the
// kernel closes its socket, the server ends the session and releases every lock it held; another
// instance's next `pg_try_advisory_lock` then succeeds. That is the whole takeover mechanism.
//
// When the connection drops while the process lives (server restart, `pg_terminate_backend`, a
// network fault, a failed health check), every lock it held is already gone on the server: the
// link reports them all as lost (`onLost`, and each lock's own callback), then reconnects with
// exponential backoff and reports the new session (`onReconnect`). It never re-takes a lock by
// itself: whoever held one decides whether to try again.
import type { ConnectionOptions } from "node:tls";
import type { Client, ClientConfig, Notification } from "pg";
import { advisoryKeyText } from "./keys.js";
import {
  LockBatch,
  type LockNotify,
  type LockOp,
  type LockOrNotify,
  type UnlockAndNotify,
} from "./lock-batch.js";
import { takeIncarnation } from "./incarnation.js";
import { loadPg } from "./pg.js";
import { serialQueue } from "./serial.js";

export interface InstanceLinkOptions {
  /** `postgres://user@host:port/db`. Connect directly or through session pooling (not transaction pooling). */
  connectionString: string;
  /** TLS for the connection, as node-postgres takes it. */
  ssl?: boolean | ConnectionOptions;
  /** Shown in `pg_stat_activity.application_name`. Default `agentsvc-pg-cluster`. */
  applicationName?: string;
  /** Bound on one connection attempt. Default 10 000 ms. */
  connectTimeoutMs?: number;
  /** First reconnect delay; doubles per failed attempt (with jitter) up to `reconnectMaxMs`. Default 250 ms. */
  reconnectMinMs?: number;
  /** Default 10 000 ms. */
  reconnectMaxMs?: number;
  /**
   * After this many ms without an answer on the link (its own statements answered show the session
   * alive, so a link in use sends none, and so does a NOTIFY heard on it: the session delivered it,
   * e.g. a leader's heartbeat), the link runs `SELECT 1`; no answer within the same time
   * counts as a dropped connection (a half-open socket is otherwise noticed only by TCP). The time
   * runs for the statement in flight (the `SELECT 1`, or one it waits behind), not while queued
   * behind answered statements. Default 10 000; 0 turns it off.
   */
  healthCheckMs?: number;
  /**
   * Server-side TCP keepalive for this session (`SET tcp_keepalives_idle/interval/count`), so the
   * server notices a vanished machine, and releases its locks, in about idle + interval * count
   * seconds instead of the operating system's default of hours. Default `{ idleS: 10, intervalS: 5,
   * count: 3 }`; `false` leaves the server's settings alone. Has no effect over a Unix socket.
   */
  serverKeepalive?: { idleS: number; intervalS: number; count: number } | false;
  /** Told about a dropped connection, a failed reconnect attempt and a callback that threw. */
  onError?: (error: Error, context: string) => void;
}

/** What `onLost` listeners receive when the connection drops. */
export interface LinkLost {
  /** The names of every lock the link held, all released by the server with the session. */
  names: string[];
  /** Why the connection ended. */
  error: Error;
  /** The generation (session) that ended. */
  generation: number;
}

/** A NOTIFY received on a channel this link LISTENs to. */
export interface LinkNotification {
  channel: string;
  payload: string;
  /** Backend pid of the session that sent it (equal to `link.backendPid` for our own). */
  senderPid: number;
}

/** Thrown by `query` (and what calls it) while the link has no live connection. */
export class LinkDownError extends Error {
  constructor(what: string) {
    super(`${what}: the PostgreSQL link is not connected (it reconnects by itself; retry later)`);
    this.name = "LinkDownError";
  }
}

type Listener<T> = (value: T) => void | Promise<void>;

const DEFAULT_KEEPALIVE = { idleS: 10, intervalS: 5, count: 3 };

/**
 * One statement for a group of lock requests (lock-batch.ts): each row takes, gives back, or asks
 * whether this session (`held`) or any session (`busy`) holds, the lock of its key, in this
 * database: advisory locks are per database, and another database on the server (another
 * deployment) may use the same names. `busy` asks the lock manager first, in O(1): a shared try fails
 * at once when another session holds the key exclusively (every holder here holds it so); only when
 * it succeeds (the key free, or held by this session, whose own locks never conflict with its
 * requests) is `pg_locks` read, for this session's exclusive hold (pg_lock_status copies the whole
 * lock table: ~1,000 rows in a burst, #45.3). A shared try that succeeds holds the key until the
 * statement ends (sub-ms): a take elsewhere then fails as if it were held. `held` and `retake` (rare:
 * a fence asked again after a refusal, a take after a failed statement) read `pg_locks` (a bigint
 * key shows there as classid, the high 32 bits, and objid, the low 32 bits, objsubid 1; this
 * session's own shared try shows as a ShareLock, its holds as ExclusiveLock).
 * `retake` (a take asked again after a failed statement) counts a lock this session holds as taken.
 * `lock-or-notify` takes, or when the lock is held sends the row's NOTIFY (`$4`, `$5`: channel and
 * payload), delivered when the statement commits; CASE evaluates the NOTIFY only when the take failed.
 * `unlock-notify` gives back, and sends the row's NOTIFY only when the lock was given back.
 * Named: parsed once per session. `$3`, the database's oid, is read once per session: reading
 * pg_database in every statement would lock that shared catalog in the server's lock table each
 * time, which a full table refuses (fences included).
 */
const LOCK_OPS = {
  name: "agentsvc-advisory-locks",
  text: `SELECT t.k::text AS key,
  CASE t.op
    WHEN 'lock' THEN pg_try_advisory_lock(t.k)
    WHEN 'lock-or-notify' THEN CASE WHEN pg_try_advisory_lock(t.k) THEN true
      ELSE (SELECT false FROM pg_notify(t.c, t.p)) END
    WHEN 'unlock' THEN pg_advisory_unlock(t.k)
    WHEN 'unlock-notify' THEN CASE WHEN pg_advisory_unlock(t.k)
      THEN (SELECT true FROM pg_notify(t.c, t.p)) ELSE false END
    WHEN 'busy' THEN NOT pg_try_advisory_xact_lock_shared(t.k) OR EXISTS (SELECT 1 FROM pg_locks l
      WHERE l.locktype = 'advisory' AND l.granted AND l.pid = pg_backend_pid() AND l.mode = 'ExclusiveLock'
      AND l.database = $3::oid AND l.classid = ((t.k >> 32) & 4294967295)::oid
      AND l.objid = (t.k & 4294967295)::oid AND l.objsubid = 1)
    ELSE CASE WHEN EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
      AND l.pid = pg_backend_pid() AND l.mode = 'ExclusiveLock' AND l.database = $3::oid
      AND l.classid = ((t.k >> 32) & 4294967295)::oid AND l.objid = (t.k & 4294967295)::oid AND l.objsubid = 1)
      THEN true WHEN t.op = 'retake' THEN pg_try_advisory_lock(t.k) ELSE false END
  END AS ok
FROM unnest($1::text[], $2::bigint[], $4::text[], $5::text[]) AS t(op, k, c, p)`,
};

export class InstanceLink {
  readonly #options: InstanceLinkOptions;
  #client: Client | undefined;
  /** Runs the current session's statements one after another. */
  #serial = serialQueue();
  /** Lock requests on the current session, grouped into shared statements. */
  #locks: LockBatch | undefined;
  #generation = 0;
  /** The current session's incarnation key (incarnation.ts). */
  #incarnation: string | undefined;
  #attempt = 0;
  #closed = false;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #healthTimer: NodeJS.Timeout | undefined;
  /** When the current session last delivered a NOTIFY (`performance.now()`): it was alive then. */
  #heardAt: number | undefined;
  /** Locks held on the current session: name -> its holding (one object per take, with the holder's lost callback). */
  readonly #held = new Map<string, { onLost: (() => void) | undefined }>();
  /** Names with a `pg_try_advisory_lock` in flight (a second local try of one returns false). */
  readonly #pending = new Set<string>();
  readonly #lost = new Set<Listener<LinkLost>>();
  readonly #reconnect = new Set<Listener<number>>();
  readonly #notify = new Set<Listener<LinkNotification>>();

  constructor(options: InstanceLinkOptions) {
    this.#options = options;
  }

  /** True while a session is open. */
  get connected(): boolean {
    return this.#client !== undefined;
  }

  /** 1 for the first session, +1 for each reconnect; 0 before the first connect. */
  get generation(): number {
    return this.#generation;
  }

  /** The server process id of the current session (`pg_backend_pid()`), if connected. */
  get backendPid(): number | undefined {
    return (this.#client as unknown as { processID?: number } | undefined)?.processID;
  }

  /**
   * The current session's incarnation key, if connected: a random advisory lock (incarnation.ts)
   * the session takes as it connects and holds until it ends. A statement on another connection
   * asks `NOT pg_try_advisory_xact_lock_shared(<its halves>)` to know, in O(1), that this very
   * session is alive (a pid may be reused, a pooler may hand the session on).
   */
  get incarnation(): string | undefined {
    return this.#client ? this.#incarnation : undefined;
  }

  /**
   * Opens the first session. Rejects when that attempt fails (a wrong address or password should
   * be seen at start, not retried silently); after it succeeds, drops are reconnected by themselves.
   */
  async connect(): Promise<void> {
    if (this.#closed) throw new Error("InstanceLink: closed");
    if (this.#client) return;
    await this.#open();
  }

  /** Runs one short statement on the link's session. Throws `LinkDownError` while disconnected. */
  async query<R extends Record<string, unknown> = Record<string, unknown>>(
    text: string,
    params: readonly unknown[] = [],
  ): Promise<R[]> {
    const client = this.#client;
    if (!client) throw new LinkDownError(text.split(/\s+/, 2).join(" "));
    const res = await this.#serial(() => client.query<R>(text, params as unknown[]));
    return res.rows;
  }

  /**
   * `pg_try_advisory_lock` on the key of `name` (see keys.ts). True when this session now holds it;
   * false when another session holds it, this link already holds it or is taking it, or the link is
   * down. A lock is held once per link: it is not re-entrant here (PostgreSQL's own locks are).
   * `onLost` runs if the connection drops while the lock is held (not after `unlock`).
   */
  async tryLock(name: string, onLost?: () => void): Promise<boolean> {
    const client = this.#client;
    if (!client || this.#held.has(name) || this.#pending.has(name)) return false;
    this.#pending.add(name);
    try {
      if (!(await this.#request("lock", name))) return false;
      // The answer came, but if the session ended meanwhile the server has released the lock.
      if (this.#client !== client) return false;
      this.#held.set(name, { onLost });
      return true;
    } catch (error) {
      if (this.#client !== client) return false;
      throw error;
    } finally {
      this.#pending.delete(name);
    }
  }

  /**
   * `tryLock`, and when another session holds the lock, `notify` sent in the same statement (one
   * round trip where a failed take and an announcement to the holder took two). `taken` as for
   * `tryLock`'s true; `notified`: held elsewhere and the NOTIFY committed; `not-taken`: not taken and
   * nothing sent (the link is down, holds or is taking it, or the statement failed): announce by
   * yourself.
   */
  async tryLockOrNotify(name: string, notify: LockNotify, onLost?: () => void): Promise<LockOrNotify> {
    const client = this.#client;
    const locks = this.#locks;
    if (!client || !locks || this.#held.has(name) || this.#pending.has(name)) return "not-taken";
    this.#pending.add(name);
    try {
      const answer = await locks.lockOrNotify(advisoryKeyText(name), notify);
      if (answer !== "taken") return answer;
      // The answer came, but if the session ended meanwhile the server has released the lock.
      if (this.#client !== client) return "not-taken";
      this.#held.set(name, { onLost });
      return "taken";
    } catch (error) {
      if (this.#client !== client) return "not-taken";
      throw error;
    } finally {
      this.#pending.delete(name);
    }
  }

  /** Releases a lock this link holds. False when it did not hold it (or the session is gone, and the lock with it). */
  async unlock(name: string): Promise<boolean> {
    const client = this.#client;
    if (!client || !this.#held.has(name)) return false;
    this.#held.delete(name);
    try {
      return await this.#request("unlock", name);
    } catch (error) {
      if (this.#client !== client) return false;
      throw error;
    }
  }

  /**
   * `unlock`, and when the lock was given back, `notify` sent in the same statement (one round trip
   * where a release and its announcement took two). `notified`: given back and the NOTIFY
   * committed; `released`: given back with nothing sent (the statement failed and the give-back was
   * asked again): announce by yourself; `not-held`: this link did not hold it (or the session is
   * gone, and the lock with it).
   */
  async unlockAndNotify(name: string, notify: LockNotify): Promise<UnlockAndNotify> {
    const client = this.#client;
    const locks = this.#locks;
    if (!client || !locks || !this.#held.has(name)) return "not-held";
    this.#held.delete(name);
    try {
      return await locks.unlockAndNotify(advisoryKeyText(name), notify);
    } catch (error) {
      if (this.#client !== client) return "not-held";
      throw error;
    }
  }

  /**
   * Whether the server says this link's session holds `name` now (`pg_locks`), asked in a statement
   * sent after this call: false when this process does not count it as held. Rejects when the
   * connection fails (the session, and the lock with it, may be gone). A lock the server says is
   * not held stops counting as held here (no lost callback runs: the caller was answered): the
   * next `tryLock` asks the server again instead of answering from a stale count.
   */
  async holdsOnServer(name: string): Promise<boolean> {
    const client = this.#client;
    const holding = this.#held.get(name);
    if (!client || !holding) return false;
    // Stryker disable next-line StringLiteral: any op but lock, unlock, busy and retake asks exactly what held asks
    const held = await this.#request("held", name);
    if (!held && this.#held.get(name) === holding) this.#held.delete(name);
    return held;
  }

  /**
   * Whether any session (this link's or another's) holds `name` now, asked of the server
   * (`pg_locks`) in a statement shared with the other lock requests waiting. A hint only: the
   * lock may be taken or given back right after the answer. Rejects when the link is down.
   */
  async heldAnywhere(name: string): Promise<boolean> {
    return this.#request("busy", name);
  }

  /**
   * One lock request on the current session, sharing a statement with the others waiting. The
   * callers that answer for a session checked it in the same tick (#locks is set with #client).
   */
  #request(op: Exclude<LockOp, "lock-or-notify" | "unlock-notify">, name: string): Promise<boolean> {
    if (!this.#locks) throw new LinkDownError(`advisory ${op}`);
    return this.#locks.request(op, advisoryKeyText(name));
  }

  /** Whether this link holds `name` now. */
  isHeld(name: string): boolean {
    return this.#held.has(name);
  }

  /** Names of the locks held now. */
  heldLocks(): string[] {
    return [...this.#held.keys()];
  }

  /** Runs when the connection drops (every lock held is gone). Returns an unsubscribe function. */
  onLost(listener: (lost: LinkLost) => void): () => void {
    this.#lost.add(listener);
    return () => this.#lost.delete(listener);
  }

  /** Runs (awaited, in order) after each reconnect with the new generation; not after the first connect. */
  onReconnect(listener: (generation: number) => void | Promise<void>): () => void {
    this.#reconnect.add(listener);
    return () => this.#reconnect.delete(listener);
  }

  /** Runs for each NOTIFY received on a channel this session LISTENs to. */
  onNotification(listener: (notification: LinkNotification) => void): () => void {
    this.#notify.add(listener);
    return () => this.#notify.delete(listener);
  }

  /** Ends the session (the server releases every lock) and stops reconnecting. Lost callbacks do not run. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    clearTimeout(this.#healthTimer);
    this.#held.clear();
    const client = this.#client;
    this.#client = undefined;
    this.#locks = undefined;
    if (client) await endQuietly(client, 5_000);
  }

  async #open(): Promise<void> {
    const { Client } = loadPg();
    const config: ClientConfig = {
      connectionString: this.#options.connectionString,
      application_name: this.#options.applicationName ?? "agentsvc-pg-cluster",
      connectionTimeoutMillis: this.#options.connectTimeoutMs ?? 10_000,
      keepAlive: true,
    };
    // Stryker disable next-line ConditionalExpression: node-postgres reads an ssl key set to undefined as one not given
    if (this.#options.ssl !== undefined) config.ssl = this.#options.ssl;
    const client = new Client(config);
    // Listeners before connecting: an 'error' without a listener would throw out of the process.
    // `ended` covers a connection that ends while it is still being set up (before it is current).
    let ended: Error | undefined;
    const end = (error: Error) => {
      ended ??= error;
      this.#dropped(client, error);
    };
    client.on("error", end);
    // Stryker disable next-line ArrowFunction,StringLiteral,CallExpression: node-postgres emits 'error' before 'end' for every end the link did not ask for (client.js); a second line should that change
    client.on("end", () => end(new Error("the PostgreSQL connection ended")));
    client.on("notification", (n: Notification) => {
      if (this.#client !== client) return;
      this.#heardAt = performance.now();
      this.#emit(
        this.#notify,
        // Stryker disable next-line StringLiteral: node-postgres always gives a string payload ("" for a NOTIFY without one)
        { channel: n.channel, payload: n.payload ?? "", senderPid: n.processId },
        "notification",
      );
    });
    let database: string | undefined;
    let incarnation: string | undefined;
    try {
      await client.connect();
      const keepalive = this.#options.serverKeepalive ?? DEFAULT_KEEPALIVE;
      if (keepalive) {
        await client.query(
          `SET tcp_keepalives_idle = ${int(keepalive.idleS)}; SET tcp_keepalives_interval = ${int(keepalive.intervalS)}; SET tcp_keepalives_count = ${int(keepalive.count)}`,
        );
      }
      database = (
        await client.query<{ oid: string }>(
          "SELECT oid::text FROM pg_database WHERE datname = current_database()",
        )
      ).rows[0]?.oid;
      incarnation = await takeIncarnation((text, values) => client.query(text, values));
    } catch (error) {
      void endQuietly(client, 1_000);
      // A session ended by the server mid-setup: its reason, not the next statement's "connection error".
      throw ended ?? error;
    }
    if (this.#closed || ended) {
      void endQuietly(client, 1_000);
      throw ended ?? new Error("InstanceLink: closed while connecting");
    }
    this.#client = client;
    this.#incarnation = incarnation;
    this.#heardAt = undefined;
    const serial = serialQueue();
    this.#serial = serial;
    this.#locks = new LockBatch(async (ops, keys, notifies) => {
      const channels = notifies.map((n) => n?.channel ?? null);
      const payloads = notifies.map((n) => n?.payload ?? null);
      const res = await serial(() =>
        client.query<{ key: string; ok: boolean }>({
          ...LOCK_OPS,
          values: [ops, keys, database, channels, payloads],
        }),
      );
      return new Set(res.rows.filter((r) => r.ok === true).map((r) => r.key));
    });
    this.#generation += 1;
    this.#attempt = 0;
    this.#startHealthCheck(client);
  }

  #dropped(client: Client, error: Error): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#locks = undefined;
    clearTimeout(this.#healthTimer);
    const held = [...this.#held];
    this.#held.clear();
    // The socket may be half-open (failed health check): end it so nothing more is read from it.
    void endQuietly(client, 1_000);
    // Stryker disable next-line ConditionalExpression: unreachable: close() clears #client in the same tick it sets #closed, so the check above has returned
    if (this.#closed) return;
    this.#options.onError?.(error, "connection dropped");
    for (const [, { onLost }] of held) {
      try {
        onLost?.();
      } catch (e) {
        this.#options.onError?.(asError(e), "lock lost callback");
      }
    }
    this.#emit(
      this.#lost,
      { names: held.map(([name]) => name), error, generation: this.#generation },
      "onLost",
    );
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    // Stryker disable next-line ConditionalExpression: both callers checked #closed just before (#dropped above, the failed attempt's handler)
    if (this.#closed) return;
    const min = this.#options.reconnectMinMs ?? 250;
    const max = this.#options.reconnectMaxMs ?? 10_000;
    const base = Math.min(max, min * 2 ** this.#attempt);
    const delay = Math.round(base / 2 + (Math.random() * base) / 2);
    this.#attempt += 1;
    this.#reconnectTimer = setTimeout(() => {
      this.#open().then(
        async () => {
          const generation = this.#generation;
          for (const listener of [...this.#reconnect]) {
            if (this.#generation !== generation) return;
            try {
              await listener(generation);
            } catch (e) {
              this.#options.onError?.(asError(e), "onReconnect");
            }
          }
        },
        (error) => {
          if (this.#closed) return;
          this.#options.onError?.(asError(error), "reconnect attempt");
          this.#scheduleReconnect();
        },
      );
    }, delay);
  }

  #startHealthCheck(client: Client): void {
    const every = this.#options.healthCheckMs ?? 10_000;
    if (every <= 0) return;
    const serial = this.#serial;
    // One timer at a time: the next check is armed only once this one is over.
    const arm = (ms: number) => {
      if (this.#client !== client) return;
      this.#healthTimer = setTimeout(tick, ms);
      this.#healthTimer.unref();
    };
    const tick = () => {
      if (this.#client !== client) return;
      // An answer, or a NOTIFY heard, within the period showed the session alive: look again a
      // period after it (a link that only hears a leader's heartbeats sends nothing).
      const last = Math.max(
        serial.settledAt ?? Number.NEGATIVE_INFINITY,
        this.#heardAt ?? Number.NEGATIVE_INFINITY,
      );
      const quiet = last === Number.NEGATIVE_INFINITY ? every : performance.now() - last;
      if (quiet < every) {
        arm(every - quiet);
        return;
      }
      let sent = false;
      let timer: NodeJS.Timeout | undefined;
      // The clock is the statement in flight (the SELECT 1 once sent, or one it waits behind): a
      // statement unanswered for `every` ms is a dead connection, while time spent behind statements
      // the server answered is a busy link, not a broken one.
      const timeout = new Promise<never>((_, reject) => {
        const check = () => {
          const since = serial.runningSince;
          const waited = since === undefined ? 0 : performance.now() - since;
          if (waited < every) {
            timer = setTimeout(check, Math.max(1, every - waited));
            return;
          }
          const what = sent ? "SELECT 1" : "a statement SELECT 1 waits behind";
          reject(new Error(`health check: no answer to ${what} in ${every} ms`));
        };
        check();
      });
      const ping = serial(() => {
        sent = true;
        return client.query("SELECT 1");
      });
      Promise.race([ping, timeout])
        .then(
          () => arm(every),
          (error: unknown) => this.#dropped(client, asError(error)),
        )
        .finally(() => clearTimeout(timer));
    };
    arm(every);
  }

  #emit<T>(listeners: Set<Listener<T>>, value: T, context: string): void {
    for (const listener of [...listeners]) {
      try {
        const r = listener(value);
        if (r instanceof Promise) r.catch((e: unknown) => this.#options.onError?.(asError(e), context));
      } catch (e) {
        this.#options.onError?.(asError(e), context);
      }
    }
  }
}

function int(n: number): number {
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`serverKeepalive: expected whole seconds >= 0 (got ${n})`);
  return n;
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/** `client.end()`, bounded: on a half-open socket it may never finish, so the socket is destroyed after `ms`. */
async function endQuietly(client: Client, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const destroy = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      // Stryker disable next-line OptionalChaining: a node-postgres Client always has its connection and stream
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      // Stryker disable next-line CallExpression: destroying the stream ends the connection, which settles client.end() in the race too
      resolve();
    }, ms);
    timer.unref();
  });
  await Promise.race([client.end().catch(() => undefined), destroy]);
  clearTimeout(timer);
}
