// A rig for Ownership on its own: instance "a" of a memory cluster, a store whose queued reads the
// test sets (and can slow down), and a busy policy where each message taken starts a turn that keeps running.
import pino from "pino";
import { GatewayRegistry } from "../src/index.js";
import { Ownership } from "../src/ownership.js";
import type { SessionParts } from "../src/parts.js";
import type { InboxRecord } from "../src/store.js";
import { createMemoryCluster, createMockGateway } from "../src/testing/index.js";
import { Threads } from "../src/threads.js";

/**
 * Instance "a" of a memory cluster with a cap of `maxHeld`, keeping threads for `holdMs` (10 minutes)
 * after their work. `adopt` runs at each take; `stopping` says the session stops.
 */
export function owner(
  maxHeld: number,
  holdMs = 600_000,
  options: {
    adopt?: (o: { own: Ownership; threads: Threads }) => Promise<void>;
    stopping?: () => boolean;
  } = {},
) {
  const cluster = createMemoryCluster();
  const registry = new GatewayRegistry();
  registry.register(createMockGateway({}));
  const threads = new Threads();
  /** Queued records per thread, and a read that waits (the store is slow for that thread). */
  const queued = new Map<string, InboxRecord[]>();
  const slow = new Map<string, Promise<void>>();
  const reads: string[] = [];
  /** Runs after each read of the thread's queued records (a record committed elsewhere just after it). */
  const afterRead = new Map<string, () => void>();
  const parts = {
    store: {
      inbox: {
        queued: async (_gateway: string, thread: string) => {
          reads.push(thread);
          await slow.get(thread);
          const rows = queued.get(thread) ?? [];
          afterRead.get(thread)?.();
          return rows;
        },
      },
    },
    registry,
    threads,
    logger: pino({ level: "silent" }),
    runs: { release() {}, cancel: () => true },
    track: (work: Promise<unknown>) => void work.catch(() => undefined),
    stopping: options.stopping ?? (() => false),
  } as unknown as SessionParts;
  /** Messages taken, as `thread:text`; each starts a turn that keeps running. */
  const taken: string[] = [];
  const own: Ownership = new Ownership(
    parts,
    cluster.instance("a"),
    {
      adopt: async (): Promise<void> => options.adopt?.({ own, threads }),
      onMessage: async (state, msg) => {
        taken.push(`${state.thread}:${msg.text}`);
        state.active = {
          inboxId: msg.inboxId,
          phase: "running",
          origin: msg.origin,
          steered: [],
          committed: false,
        };
      },
    },
    { holdMs, maxHeld },
  );
  threads.afterEach = (state) => own.settle(state);
  const record = (id: number, thread: string, text: string): InboxRecord =>
    ({
      id,
      gateway: "mock",
      thread,
      text,
      origin: { gateway: "mock", thread },
      status: "queued",
    }) as InboxRecord;
  return { cluster, own, threads, queued, slow, reads, afterRead, record, taken };
}

/** The threads whose locks the cluster counts held, sorted. */
export const held = (o: ReturnType<typeof owner>) => [...o.cluster.holders().keys()].sort();
