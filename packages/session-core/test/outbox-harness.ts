// One outbox sender over the memory store, with what it logs and reports collected, for the
// outbox-*.test.ts files that test the sender on its own (no session, no turns).
import { pino } from "pino";
import { afterEach, beforeEach, vi } from "vitest";
import {
  GatewayRegistry,
  type InteractionRequest,
  type SendOutcome,
  type SessionObserver,
} from "../src/index.js";
import type { OutboxShare } from "../src/outbox-partition.js";
import { OutboxSender } from "../src/outbox-sender.js";
import { createMemorySessionStore, MockGateway } from "../src/testing/index.js";

export type SenderOptions = ConstructorParameters<typeof OutboxSender>[0]["options"];
type MemoryStore = ReturnType<typeof createMemorySessionStore>;

/** A text piece whose text is its key. */
export const piece = (gateway: string, thread: string, key: string) => ({
  gateway,
  thread,
  idemKey: key,
  kind: "text" as const,
  payload: { text: key },
});

/** `n` pieces of `gateway`, each the head of a thread of its own (t<from>, t<from+1>, ...). */
export const heads = (gateway: string, n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => piece(gateway, `t${from + i}`, `p${from + i}`));

export const request = (requestId: string): InteractionRequest => ({
  requestId,
  threadId: "gw:mock:A",
  gateway: "mock",
  thread: "A",
  allowedDecisions: ["approve", "reject"],
  toolName: "delete_file",
  arguments: { note: "x" },
  prompt: "Allow delete_file?",
  createdAt: 1,
});

/** Each piece of a thread as [status, attempts]. */
export const statuses = async (store: MemoryStore, gateway: string, thread: string) =>
  (await store.outbox.list(gateway, thread)).map((r) => [r.status, r.attempts]);

/** A gateway whose sends wait until the test opens them; counts how many were in flight at once. */
export class GatedGateway extends MockGateway {
  inFlight = 0;
  mostInFlight = 0;
  #open: (() => void)[] = [];

  override async send(...args: Parameters<MockGateway["send"]>): ReturnType<MockGateway["send"]> {
    this.inFlight += 1;
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    await new Promise<void>((resolve) => this.#open.push(resolve));
    this.inFlight -= 1;
    return super.send(...args);
  }

  /** Lets every waiting send go on. */
  openAll(): void {
    for (const open of this.#open.splice(0)) open();
  }
}

/**
 * Returns a function that builds a sender (stopped after each test) with its log lines, the
 * outcomes it reported, the gateways it reported for their credentials and the wakes it passed on.
 */
export function useSender() {
  let sender: OutboxSender | undefined;
  afterEach(async () => {
    await sender?.stop();
    sender = undefined;
  });
  return (
    gateways: MockGateway[],
    options: SenderOptions = {},
    /** Leave out `elsewhere` or `onCredentials`, or observe with hooks of the test's own. */
    input: { elsewhere?: boolean; onCredentials?: boolean; observer?: SessionObserver } = {},
  ) => {
    const store = createMemorySessionStore();
    const registry = new GatewayRegistry();
    for (const g of gateways) registry.register(g);
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      { level: "info" },
      { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const outcomes: [string, SendOutcome][] = [];
    const sending: string[] = [];
    const credentials: string[] = [];
    const elsewhere: number[] = [];
    sender = new OutboxSender({
      store,
      registry,
      loggerFor: () => logger,
      logger,
      options,
      observer: input.observer ?? {
        onSending: (g) => sending.push(g),
        onSent: (g, outcome) => outcomes.push([g, outcome]),
      },
      ...(input.onCredentials === false ? {} : { onCredentials: (g) => credentials.push(g.name) }),
      ...(input.elsewhere === false ? {} : { elsewhere: () => elsewhere.push(1) }),
    });
    return { store, sender, lines, outcomes, sending, credentials, elsewhere };
  };
}

/**
 * Counts the store's due reads and next-due reads from now on (each next-due read's share is told to
 * `onNextDue`): how often the sender asked the store, which is what its looks and passes cost.
 */
export function countReads(store: MemoryStore, onNextDue?: (share: OutboxShare | undefined) => void) {
  const reads = { due: 0, nextDueAt: 0 };
  const due = store.outbox.due.bind(store.outbox);
  const nextDueAt = store.outbox.nextDueAt.bind(store.outbox);
  store.outbox.due = async (...args) => {
    reads.due += 1;
    return due(...args);
  };
  store.outbox.nextDueAt = async (share) => {
    reads.nextDueAt += 1;
    onNextDue?.(share);
    return nextDueAt(share);
  };
  return reads;
}

/** The limit each due read of `store` asks for from now on, in order. */
export function dueLimits(store: MemoryStore): (number | undefined)[] {
  const limits: (number | undefined)[] = [];
  const due = store.outbox.due.bind(store.outbox);
  store.outbox.due = (now, limit, fence, share) => {
    limits.push(limit);
    return due(now, limit, fence, share);
  };
  return limits;
}

/**
 * vitest's fake setTimeout, clearTimeout and Date for the calling file's tests (hooks registered when
 * called, not at import: the files share threads). setImmediate stays real, so `flush` still runs.
 */
export function useFakeClock(): void {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

/** Lets every pending promise chain run (setImmediate is not faked by useFakeClock). */
export async function flush(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}
