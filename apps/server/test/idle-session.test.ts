// The gateway session's stand-in of a project with no gateway (idle-session.ts): it keeps the
// session's pruning schedule, and answers as the session does with no gateway registered.
import type { GatewaySessionOptions } from "@agentsvc/session-core";
import { DEFAULT_RETENTION } from "@agentsvc/session-core";
import type { ChatDb } from "@agentsvc/chat-store";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { IdleSession } from "../src/idle-session.js";

afterEach(() => {
  vi.useRealTimers();
});

function fakeStore() {
  const pruned: string[] = [];
  const prune = (what: string) => async () => {
    pruned.push(what);
    return 0;
  };
  const store = {
    inbox: { prune: prune("inbox") },
    outbox: { prune: prune("outbox"), nextDueAt: async () => undefined },
    seenTokens: { prune: prune("tokens") },
    blobs: { prune: prune("blobs") },
  };
  return { store: store as unknown as ChatDb, pruned };
}

const optionsWith = (store: ChatDb) =>
  ({ store, loggers: { root: pino({ level: "silent" }) } }) as unknown as GatewaySessionOptions & {
    store: ChatDb;
  };

describe("the gateway session's stand-in (a project with no gateway)", () => {
  it("prunes finished records and stored files on the session's schedule: none at start, then every interval", async () => {
    vi.useFakeTimers();
    const { store, pruned } = fakeStore();
    const session = new IdleSession(optionsWith(store));
    await session.start();
    expect(pruned).toEqual([]);
    await vi.advanceTimersByTimeAsync(DEFAULT_RETENTION.intervalMs);
    expect(pruned).toEqual(["inbox", "outbox", "tokens", "blobs"]);
    await vi.advanceTimersByTimeAsync(DEFAULT_RETENTION.intervalMs);
    expect(pruned).toHaveLength(8);
    await session.stop(0);
    await vi.advanceTimersByTimeAsync(DEFAULT_RETENTION.intervalMs);
    expect(pruned).toHaveLength(8);
  });

  it("shows no gateway and no queue, as the session with none registered", () => {
    const session = new IdleSession(optionsWith(fakeStore().store));
    expect(session.status()).toEqual({});
    expect(session.queueDepths()).toEqual({});
  });
});
