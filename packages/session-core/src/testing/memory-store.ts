// An in-process SessionStore for adapter tests (the contract suite): the same behaviour as
// ChatDb's tables, minus durability. `transaction` runs its function as is (no rollback); the
// session's crash-safety is proven against real SQLite in apps/server's crash test.
import { type Decision, InMemoryRunStore, type RunOrigin } from "@agentsvc/agent-core";
import { memorySenderAccess } from "./memory-sender-access.js";
import { inShare } from "../outbox-partition.js";
import type { InboxDoneStatus, InboxRecord, OutboxRow, SessionStore, StoredInteraction } from "../store.js";

type Row = OutboxRow;

export function createMemorySessionStore(now: () => number = Date.now): SessionStore {
  const inbox: InboxRecord[] = [];
  const interactions = new Map<string, StoredInteraction>();
  const outbox: Row[] = [];
  const state = new Map<string, string>();
  const tokens = new Map<string, { value: string; expiresAt: number }>();
  const head = (r: Row) =>
    !outbox.some(
      (o) => o.status === "pending" && o.gateway === r.gateway && o.thread === r.thread && o.id < r.id,
    );
  return {
    inbox: {
      async accept(input: {
        gateway: string;
        dedupKey: string;
        thread: string;
        text: string;
        origin: RunOrigin;
      }) {
        if (inbox.some((r) => r.gateway === input.gateway && r.dedupKey === input.dedupKey))
          return { accepted: false, duplicate: true } as const;
        const id = inbox.length + 1;
        inbox.push({ id, ...input, status: "queued", receivedAt: now(), startedAt: null, finishedAt: null });
        return { accepted: true, id } as const;
      },
      async markRunning(id: number) {
        const r = inbox[id - 1];
        if (r?.status !== "queued") return;
        r.status = "running";
        r.startedAt = now();
      },
      async markDone(id: number, status: InboxDoneStatus) {
        const r = inbox[id - 1];
        if (!r || (r.status !== "queued" && r.status !== "running")) return;
        r.status = status;
        r.finishedAt = now();
      },
      queued: async (gateway: string, thread: string) =>
        inbox
          .filter((r) => r.gateway === gateway && r.thread === thread && r.status === "queued")
          .map((r) => ({ ...r })),
      unfinished: async () =>
        inbox.filter((r) => r.status === "queued" || r.status === "running").map((r) => ({ ...r })),
      // One process, no concurrent transactions: nothing to wait for.
      unfinishedOf: async (gateway: string, thread: string) =>
        inbox
          .filter(
            (r) =>
              r.gateway === gateway &&
              r.thread === thread &&
              (r.status === "queued" || r.status === "running"),
          )
          .map((r) => ({ ...r })),
      prune: async () => 0,
    },
    interactions: {
      async save(request) {
        const prev = interactions.get(request.requestId);
        interactions.set(request.requestId, {
          ...request,
          expiresAt: request.expiresAt ?? null,
          participant: request.participant ?? null,
          status: prev?.status ?? "open",
        });
      },
      get: async (id) => {
        const r = interactions.get(id);
        return r && { ...r };
      },
      getOpenByThread: async (gateway, thread) =>
        [...interactions.values()]
          .filter((r) => r.gateway === gateway && r.thread === thread && r.status === "open")
          .sort((a, b) => b.createdAt - a.createdAt)[0],
      async resolve(requestId: string, _decision: Decision) {
        const r = interactions.get(requestId);
        if (r?.status !== "open") return false;
        r.status = "resolved";
        return true;
      },
      listOpen: async () => [...interactions.values()].filter((r) => r.status === "open"),
      expired: async (at) =>
        [...interactions.values()].filter(
          (r) => r.status === "open" && r.expiresAt !== null && r.expiresAt <= at,
        ),
    },
    outbox: {
      async enqueue(items) {
        const ids: number[] = [];
        for (const item of items) {
          if (outbox.some((o) => o.idemKey === item.idemKey)) continue;
          const id = outbox.length + 1;
          outbox.push({
            id,
            gateway: item.gateway,
            thread: item.thread,
            idemKey: item.idemKey,
            kind: item.kind,
            payload: structuredClone(item.payload),
            status: "pending",
            attempts: 0,
            nextAttemptAt: item.notBefore ?? now(),
            platformId: null,
            createdAt: now(),
            // Kept as the real stores keep it: a send continues the trace of the turn that wrote it.
            ...(item.traceparent ? { traceparent: item.traceparent } : {}),
          });
          ids.push(id);
        }
        return ids;
      },
      // A share leaves out other partitions' heads before the limit, as PostgreSQL's due read does.
      due: async (at, limit = 32, _fence, share) =>
        outbox
          .filter((r) => r.status === "pending" && r.nextAttemptAt <= at && head(r))
          .filter((r) => !share || inShare(share, r))
          .slice(0, limit),
      nextDueAt: async (share) => {
        const times = outbox
          .filter((r) => r.status === "pending" && head(r) && (!share || inShare(share, r)))
          .map((r) => r.nextAttemptAt);
        return times.length ? Math.min(...times) : undefined;
      },
      async markSent(id, platformId) {
        const r = outbox[id - 1];
        if (r?.status !== "pending") return false;
        Object.assign(r, { status: "sent", attempts: r.attempts + 1, platformId: platformId ?? null });
        return true;
      },
      async markRetry(id, nextAttemptAt) {
        const r = outbox[id - 1];
        if (r?.status !== "pending") return false;
        Object.assign(r, { attempts: r.attempts + 1, nextAttemptAt });
        return true;
      },
      async markDead(id) {
        const r = outbox[id - 1];
        if (r?.status !== "pending") return false;
        Object.assign(r, { status: "dead", attempts: r.attempts + 1 });
        return true;
      },
      async markUndelivered(gateway, thread, platformId, _error, retry) {
        const r = outbox.find(
          (o) =>
            o.gateway === gateway &&
            o.thread === thread &&
            o.platformId === platformId &&
            o.status === "sent",
        );
        if (!r) return false;
        if (retry && r.attempts < retry.maxAttempts)
          Object.assign(r, { status: "pending", nextAttemptAt: retry.at, platformId: null });
        else r.status = "dead";
        return true;
      },
      list: async (gateway, thread, after = 0, limit = 1000) =>
        outbox.filter((r) => r.gateway === gateway && r.thread === thread && r.id > after).slice(0, limit),
      prune: async () => 0,
    },
    gatewayState: {
      get: async <T>(gateway: string, key: string) => {
        const v = state.get(`${gateway}\u0000${key}`);
        return v === undefined ? undefined : (JSON.parse(v) as T);
      },
      set: async (gateway, key, value) => void state.set(`${gateway}\u0000${key}`, JSON.stringify(value)),
      delete: async (gateway, key) => void state.delete(`${gateway}\u0000${key}`),
    },
    seenTokens: {
      async claim(scope, token, value, expiresAt) {
        const key = `${scope}\u0000${token}`;
        const found = tokens.get(key);
        if (found && found.expiresAt >= now()) return { claimed: false, value: found.value };
        tokens.set(key, { value, expiresAt });
        return { claimed: true };
      },
      prune: async () => 0,
    },
    runStore: new InMemoryRunStore(),
    senderAccess: memorySenderAccess(),
    transaction: async <T>(fn: () => Promise<T> | T): Promise<T> => fn(),
  };
}
