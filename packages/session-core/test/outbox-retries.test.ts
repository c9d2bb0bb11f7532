// The outbox's retry promises on a controlled clock (vitest fake timers: Date and setTimeout move
// only when the test advances them, so a 5-minute outage takes no real time).
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sendFailure } from "@agentsvc/adapter-kit";
import { GatewayRegistry, type SendOptions, type SendResult } from "../src/index.js";
import { WAKE_SPACING_MS } from "../src/outbox-options.js";
import { OutboxSender } from "../src/outbox-sender.js";
import { createMemorySessionStore, MockGateway } from "../src/testing/index.js";

interface Attempt {
  at: number;
  text: string;
  key: string | undefined;
  attempt: number | undefined;
}

/** A platform whose answer to each call is chosen by the test (undefined: accepted). */
class ScriptedPlatform extends MockGateway {
  readonly calls: Attempt[] = [];
  answer: (call: Attempt) => Error | undefined = () => undefined;

  override async send(thread: string, text: string, options?: SendOptions): Promise<SendResult | undefined> {
    const call = { at: Date.now(), text, key: options?.idempotencyKey, attempt: options?.attempt };
    this.calls.push(call);
    const failure = this.answer(call);
    if (failure) throw failure;
    return super.send(thread, text, options);
  }
}

const silent = pino({ level: "silent" });
const piece = (thread: string, key: string, text: string) => ({
  gateway: "mock",
  thread,
  idemKey: key,
  kind: "text" as const,
  payload: { text },
});
const unavailable = (retryAfter?: string) =>
  sendFailure(
    { status: 503, ...(retryAfter !== undefined ? { retryAfter } : {}) },
    { platform: "mock", call: "send" },
  );

let sender: OutboxSender | undefined;
beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse("2026-11-25T12:00:00Z") });
});
afterEach(async () => {
  await sender?.stop();
  sender = undefined;
  vi.useRealTimers();
});

function setUp(options: ConstructorParameters<typeof OutboxSender>[0]["options"] = {}) {
  const store = createMemorySessionStore();
  const platform = new ScriptedPlatform({ name: "mock" });
  const registry = new GatewayRegistry();
  registry.register(platform);
  sender = new OutboxSender({ store, registry, loggerFor: () => silent, logger: silent, options });
  return { store, platform, sender };
}

const gaps = (calls: Attempt[]) => calls.slice(1).map((c, i) => c.at - (calls[i] as Attempt).at);

describe("outbox retries", () => {
  it("waits about 1, 2, 4, 8 s between attempts (within 20% jitter), never more than the cap", async () => {
    const { store, platform, sender } = setUp({ maxDelayMs: 8_000, maxAttempts: 7 });
    platform.answer = () => unavailable();
    await store.outbox.enqueue([piece("A", "a1", "hello")]);
    sender.start();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(platform.calls).toHaveLength(7);
    const expected = [1_000, 2_000, 4_000, 8_000, 8_000, 8_000];
    for (const [i, gap] of gaps(platform.calls).entries()) {
      const base = expected[i] as number;
      expect(gap, `gap before attempt ${i + 2}`).toBeGreaterThanOrEqual(base);
      expect(gap, `gap before attempt ${i + 2}`).toBeLessThanOrEqual(base * 1.2 + 1);
    }
    expect((await store.outbox.list("mock", "A"))[0]).toMatchObject({ status: "dead", attempts: 7 });
  });

  it("delivers a reply after a 5-minute platform outage with the default settings", async () => {
    const { store, platform, sender } = setUp();
    const outageEnds = Date.now() + 5 * 60_000;
    platform.answer = (call) => (call.at < outageEnds ? unavailable() : undefined);
    await store.outbox.enqueue([piece("A", "a1", "still there?")]);
    sender.start();
    await vi.advanceTimersByTimeAsync(15 * 60_000);
    expect(platform.textsTo("A")).toEqual(["still there?"]);
    expect((await store.outbox.list("mock", "A"))[0]).toMatchObject({ status: "sent" });
    const failed = platform.calls.filter((c) => c.at < outageEnds);
    expect(failed.length).toBeGreaterThan(1);
    expect(platform.calls.at(-1)?.at).toBeGreaterThanOrEqual(outageEnds);
  });

  it("dead-letters a permanent refusal after one attempt and sends the thread's next reply in the next pass, not after a backoff", async () => {
    const { store, platform, sender } = setUp();
    platform.answer = (call) =>
      call.text === "refused" ? sendFailure({ status: 403 }, { platform: "mock", call: "send" }) : undefined;
    await store.outbox.enqueue([piece("A", "a1", "refused"), piece("A", "a2", "next")]);
    const start = Date.now();
    sender.start();
    // The next pass: WAKE_SPACING_MS after the one that found the refused piece (passes are spaced).
    await vi.advanceTimersByTimeAsync(WAKE_SPACING_MS);
    await sender.settled();
    expect(platform.calls.map((c) => c.text)).toEqual(["refused", "next"]);
    expect(platform.calls.map((c) => c.at - start)).toEqual([0, WAKE_SPACING_MS]);
    const rows = await store.outbox.list("mock", "A");
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ["dead", 1],
      ["sent", 1],
    ]);
  });

  it("waits the platform's Retry-After in seconds when it is longer than the backoff", async () => {
    const { store, platform, sender } = setUp();
    platform.answer = (call) => (call.attempt === 1 ? unavailable("7") : undefined);
    await store.outbox.enqueue([piece("A", "a1", "later")]);
    sender.start();
    await vi.advanceTimersByTimeAsync(6_900);
    expect(platform.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(platform.calls).toHaveLength(2);
    expect(gaps(platform.calls)[0]).toBe(7_000);
    expect(platform.textsTo("A")).toEqual(["later"]);
  });

  it("waits until the platform's Retry-After HTTP date", async () => {
    const { store, platform, sender } = setUp();
    const until = new Date(Date.now() + 30_000).toUTCString();
    platform.answer = (call) => (call.attempt === 1 ? unavailable(until) : undefined);
    await store.outbox.enqueue([piece("A", "a1", "at half past")]);
    sender.start();
    await vi.advanceTimersByTimeAsync(29_000);
    expect(platform.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_100);
    expect(platform.calls).toHaveLength(2);
    expect(platform.calls[1]?.at).toBe(Date.parse(until));
  });

  it("gives every attempt of a piece the same idempotency key and counts the attempts", async () => {
    const { store, platform, sender } = setUp();
    platform.answer = (call) => ((call.attempt ?? 0) <= 3 ? unavailable() : undefined);
    await store.outbox.enqueue([piece("A", "a1", "once"), piece("B", "b1", "other")]);
    sender.start();
    await vi.advanceTimersByTimeAsync(60_000);
    const ofA = platform.calls.filter((c) => c.text === "once");
    expect(ofA.map((c) => c.attempt)).toEqual([1, 2, 3, 4]);
    expect(new Set(ofA.map((c) => c.key))).toEqual(new Set(["a1"]));
    expect(platform.sent.filter((s) => s.thread === "A").map((s) => s.key)).toEqual(["a1"]);
  });
});

// The default cap on the wait between a failing piece's attempts (outbox-sender.ts: 300 s unless
// maxDelayMs says otherwise; adapter-kit's backoff alone caps at 60 s): with the defaults the waits
// keep doubling past a minute, so ten attempts span an outage of about 8.5 minutes, not 4.
describe("the outbox's retries with the default settings", () => {
  it("wait longer than a minute once the doubling passes it: about 64 s and then 128 s before the 8th and 9th attempts", async () => {
    const { store, platform, sender } = setUp();
    platform.answer = () => unavailable();
    await store.outbox.enqueue([piece("A", "a1", "hello")]);
    sender.start();
    await vi.advanceTimersByTimeAsync(20 * 60_000);
    const waits = gaps(platform.calls);
    expect(waits.length).toBeGreaterThanOrEqual(8);
    // Base 1 s doubling, 20% jitter: the 7th and 8th waits are 64 s and 128 s at least.
    expect(waits[6]).toBeGreaterThanOrEqual(64_000);
    expect(waits[7]).toBeGreaterThanOrEqual(128_000);
  });
});
