// Several sessions in one process sharing locks, messages and leadership the way instances share
// them through PostgreSQL (testing only): a thread lock has one holder, a role one leader (the
// next in line takes over when it goes), and `drop(id)` is an instance's connection dropping. The
// messages go over that same connection (pg-cluster's bus LISTENs on the instance's link), so an
// instance whose connection is gone neither hears nor tells the others anything.
import type { ClusterMessage, Coordination } from "../coordination.js";

export interface MemoryCluster {
  instance(id: string): Coordination;
  /** The instance's connection drops: its locks and roles go to others at once. */
  drop(id: string): void;
  /**
   * The instance's connection drops and it has not noticed yet: its thread locks and roles go to
   * others at once (its fence fails; the next in line leads, as its lock try would succeed on
   * PostgreSQL), but it is told nothing and believes it still leads until `drop(id)`. It hears no
   * message and its own reach nobody (they went over the connection), and a role it asks for is
   * never granted (its lock try cannot succeed). Its store still answers: a commit is stopped by
   * the fence only.
   */
  cut(id: string): void;
  /** Who holds each thread lock now. */
  holders(): Map<string, string>;
  leaderOf(role: string): string | undefined;
}

interface Candidate {
  id: string;
  handlers: { onLead(): Promise<void> | void; onLose(): Promise<void> | void };
}

/** A lead with `tryAfterMs` waiting to try a free role: in line as soon as another takes it. */
interface Pending extends Candidate {
  timer: NodeJS.Timeout;
}

export function createMemoryCluster(): MemoryCluster {
  const locks = new Map<string, string>();
  const roles = new Map<string, Candidate[]>();
  const pending = new Map<string, Pending[]>();
  const subscribers = new Set<{ id: string; handler: (m: ClusterMessage) => void }>();
  const lostHandlers = new Map<string, Set<(keys: string[]) => void>>();
  const dropped = new Set<string>();
  /** Cut off without knowing it: can take nothing, still believes what it held. */
  const severed = new Set<string>();
  /** The roles a cut instance led, told lost only at its `drop`. */
  const unaware: Candidate[] = [];

  const promote = (role: string) => {
    const line = roles.get(role);
    const next = line?.[0];
    if (next) void next.handlers.onLead();
  };
  /** Joins the role's line; leads at once when it was free. Pending leads line up behind a new leader. */
  const join = (role: string, c: Candidate) => {
    const line = roles.get(role) ?? [];
    const waiting = (pending.get(role) ?? []).filter((p) => p !== c);
    pending.delete(role);
    for (const p of waiting) clearTimeout(p.timer);
    roles.set(role, [...line, c, ...waiting]);
    if (line.length === 0) void c.handlers.onLead();
  };
  const unpend = (role: string, id: string) => {
    const waiting = pending.get(role) ?? [];
    for (const p of waiting) if (p.id === id) clearTimeout(p.timer);
    pending.set(
      role,
      waiting.filter((p) => p.id !== id),
    );
  };
  const leave = (role: string, id: string) => {
    unpend(role, id);
    const line = roles.get(role) ?? [];
    const wasLeader = line[0]?.id === id;
    const gone = line.filter((c) => c.id === id);
    roles.set(
      role,
      line.filter((c) => c.id !== id),
    );
    if (wasLeader) {
      for (const c of gone) void c.handlers.onLose();
      promote(role);
    }
  };

  return {
    holders: () => new Map(locks),
    leaderOf: (role) => roles.get(role)?.[0]?.id,
    drop(id) {
      dropped.add(id);
      const keys = [...locks].filter(([, holder]) => holder === id).map(([key]) => key);
      for (const key of keys) locks.delete(key);
      for (const handler of lostHandlers.get(id) ?? []) handler(keys);
      for (const role of roles.keys()) leave(role, id);
      for (const role of pending.keys()) unpend(role, id);
      for (const c of unaware.filter((u) => u.id === id)) void c.handlers.onLose();
      for (const s of [...subscribers]) if (s.id === id) subscribers.delete(s);
    },
    cut(id) {
      severed.add(id);
      for (const role of pending.keys()) unpend(role, id);
      for (const s of [...subscribers]) if (s.id === id) subscribers.delete(s);
      for (const [key, holder] of [...locks]) if (holder === id) locks.delete(key);
      for (const [role, line] of roles) {
        const leader = line[0];
        roles.set(
          role,
          line.filter((c) => c.id !== id),
        );
        if (leader?.id !== id) continue;
        unaware.push(leader);
        promote(role);
      }
    },
    instance(id) {
      return {
        async fence(key) {
          if (locks.get(key) !== id) throw new Error(`${id} does not hold ${key}`);
        },
        shared: true,
        async acquireThread(key) {
          if (dropped.has(id) || severed.has(id)) return false;
          const holder = locks.get(key);
          if (holder && holder !== id) return false;
          locks.set(key, id);
          return true;
        },
        // As PostgreSQL's take that announces to the holder in its statement (pg-cluster
        // tryLockOrNotify), so the session's tests run the path production runs there. Made of this
        // object's own take and publish: a test wrapping either sees the take and the announcement.
        async acquireOrAnnounce(key, message) {
          if (await this.acquireThread(key)) return "acquired";
          const holder = locks.get(key);
          if (dropped.has(id) || severed.has(id) || !holder || holder === id) return "not-acquired";
          await this.publish(message);
          return "announced";
        },
        async threadBusy(key) {
          return locks.has(key);
        },
        async releaseThread(key) {
          if (locks.get(key) === id) locks.delete(key);
        },
        async publish(message) {
          if (dropped.has(id) || severed.has(id)) return;
          for (const s of [...subscribers]) queueMicrotask(() => s.handler(message));
        },
        subscribe(handler) {
          const entry = { id, handler };
          if (!severed.has(id)) subscribers.add(entry);
          return () => subscribers.delete(entry);
        },
        lead(role, handlers, options) {
          if (severed.has(id)) return async () => {};
          const line = roles.get(role) ?? [];
          if (options?.tryAfterMs === undefined || line.length > 0) join(role, { id, handlers });
          else {
            // Free now: as pg-cluster's tryAfterMs, tried once that time is over, or in line
            // behind whoever takes it meanwhile (its give-back announced, tried at once).
            const p: Pending = { id, handlers, timer: setTimeout(() => join(role, p), options.tryAfterMs) };
            pending.set(role, [...(pending.get(role) ?? []), p]);
          }
          return async () => leave(role, id);
        },
        onThreadsLost(handler) {
          const set = lostHandlers.get(id) ?? new Set<(keys: string[]) => void>();
          lostHandlers.set(id, set);
          set.add(handler);
          return () => set.delete(handler);
        },
      };
    },
  };
}
