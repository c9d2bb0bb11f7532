// What the OutboxShares tests share (outbox-shares-*.test.ts, outbox-helper-unserved-pg): a sender
// that records its calls, a coordination whose roles the test grants, the shares over both, and the
// rig most of them drive those through, on a fake clock.
import { pino } from "pino";
import { afterEach, beforeEach, vi } from "vitest";
import type { ClusterMessage, Coordination } from "../src/coordination.js";
import type { RoleFence } from "../src/outbox-fence.js";
import type { OutboxShare } from "../src/outbox-partition.js";
import type { OutboxSender } from "../src/outbox-sender.js";
import { OUTBOX_PARTITIONS, OutboxShares, type OutboxSharesDeps } from "../src/outbox-shares.js";
import type { OutboxRow } from "../src/store.js";

type RoleHandlers = { onLead(): unknown; onLose(): unknown };

/** Each test of the calling file on vitest's fake clock (the shares' line-up, requeue and idle timers). */
export function fakeClockEachTest(): void {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

/** What a sender was told to send: its pieces, the fence of its roles, the share its reads name. */
export interface Restriction {
  mine: ((row: OutboxRow) => boolean) | undefined;
  fence: (() => RoleFence) | undefined;
  share: (() => OutboxShare) | undefined;
}

/** A sender that records each start, wake(fromElsewhere) and stop in `calls`, each restrict in `restrictions`. */
export function fakeSender() {
  const calls: string[] = [];
  const restrictions: Restriction[] = [];
  const sender = {
    running: false,
    pressure: undefined as OutboxSender["pressure"],
    start() {
      calls.push("start");
      this.running = true;
    },
    wake(fromElsewhere?: boolean) {
      calls.push(`wake(${fromElsewhere})`);
    },
    async stop() {
      calls.push("stop");
      this.running = false;
    },
    async drained() {},
    restrict(mine: Restriction["mine"], fence?: Restriction["fence"], share?: Restriction["share"]) {
      restrictions.push({ mine, fence, share });
    },
  };
  return { sender, calls, restrictions };
}

/**
 * A coordination that grants a role only when the test says (`grant`); `asked` lists each role
 * queued for, in order (`waits`: each one's `tryAfterMs`), `published` each message; a role's stop
 * runs `leave` (default: nothing).
 */
export function fakeCoordination(leave: (role: string) => unknown = () => undefined) {
  const handlers = new Map<string, RoleHandlers>();
  const asked: string[] = [];
  const waits: (number | undefined)[] = [];
  const published: ClusterMessage[] = [];
  const coordination = {
    shared: true,
    lead(role: string, h: RoleHandlers, options?: { tryAfterMs?: number }) {
      handlers.set(role, h);
      asked.push(role);
      waits.push(options?.tryAfterMs);
      return async () => {
        await leave(role);
      };
    },
    publish: async (message: ClusterMessage) => {
      published.push(message);
    },
    roleLock: (role: string) => ({ pid: 42, key: role }),
  } as unknown as Coordination;
  const role = (p: number) => handlers.get(`outbox:${p}`) as RoleHandlers;
  const grant = (p: number) => handlers.get(`outbox:${p}`)?.onLead();
  return { coordination, asked, waits, published, role, grant };
}

/** Shares of gateway "http", nothing pinned, a silent log, not stopping; `deps` override any of it. */
export function sharesOver(
  coordination: Coordination,
  sender: ReturnType<typeof fakeSender>["sender"],
  deps: Partial<OutboxSharesDeps> = {},
) {
  return new OutboxShares({
    coordination,
    sender: sender as unknown as OutboxSender,
    pinned: () => false,
    gateways: () => ["http"],
    logger: pino({ level: "silent" }),
    stopping: () => false,
    ...deps,
  });
}

/**
 * Shares over a fakeCoordination and a fakeSender (`deps` as sharesOver's): `left` lists each role
 * left, after `leave(role)` when given (awaited), `grantAll` grants the four partitions, `backlog`
 * and `pass(sent)` report the sender's pressure.
 */
export function sharesRig(deps: Partial<OutboxSharesDeps> = {}, leave?: (role: string) => unknown) {
  const left: string[] = [];
  const { coordination, asked, waits, published, grant } = fakeCoordination(
    leave
      ? async (role) => {
          await leave(role);
          left.push(role);
        }
      : (role) => left.push(role),
  );
  const { sender, calls, restrictions } = fakeSender();
  const shares = sharesOver(coordination, sender, deps);
  const grantAll = () => {
    for (let p = 0; p < OUTBOX_PARTITIONS; p++) grant(p);
  };
  const backlog = () => sender.pressure?.backlog();
  const pass = (sent: number) => sender.pressure?.passed(sent);
  return {
    shares,
    sender,
    calls,
    restrictions,
    asked,
    waits,
    published,
    left,
    grant,
    grantAll,
    backlog,
    pass,
  };
}

/** The asks for help among `published` (not a helper's answers, `helping`). */
export const helpAsks = (published: ClusterMessage[]) =>
  published.filter((m) => m.kind === "outbox-help" && !m.helping).length;
