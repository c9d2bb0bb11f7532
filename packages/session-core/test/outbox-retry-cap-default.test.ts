// The outbox's default cap on the wait between a failing piece's attempts (outbox-sender.ts: 300 s
// unless maxDelayMs says otherwise; adapter-kit's backoff alone caps at 60 s): with the defaults the
// waits keep doubling past a minute, so ten attempts span an outage of about 8.5 minutes, not 4.
// Vitest's fake clock (Date and setTimeout move only when the test advances them).
import { sendFailure } from "@agentsvc/adapter-kit";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GatewayRegistry, type SendOptions, type SendResult } from "../src/index.js";
import { OutboxSender } from "../src/outbox-sender.js";
import { createMemorySessionStore, MockGateway } from "../src/testing/index.js";

/** A platform that is down: every send fails as retryable (503), each call's time kept. */
class DownPlatform extends MockGateway {
  readonly at: number[] = [];
  override async send(
    _thread: string,
    _text: string,
    _options?: SendOptions,
  ): Promise<SendResult | undefined> {
    this.at.push(Date.now());
    throw sendFailure({ status: 503 }, { platform: "mock", call: "send" });
  }
}

let sender: OutboxSender | undefined;
beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse("2026-11-25T12:00:00Z") });
});
afterEach(async () => {
  await sender?.stop();
  sender = undefined;
  vi.useRealTimers();
});

describe("the outbox's retries with the default settings", () => {
  it("wait longer than a minute once the doubling passes it: about 64 s and then 128 s before the 8th and 9th attempts", async () => {
    const store = createMemorySessionStore();
    const platform = new DownPlatform({ name: "mock" });
    const registry = new GatewayRegistry();
    registry.register(platform);
    const silent = pino({ level: "silent" });
    sender = new OutboxSender({ store, registry, loggerFor: () => silent, logger: silent });
    await store.outbox.enqueue([
      { gateway: "mock", thread: "A", idemKey: "a1", kind: "text", payload: { text: "hello" } },
    ]);
    sender.start();
    await vi.advanceTimersByTimeAsync(20 * 60_000);
    const gaps = platform.at.slice(1).map((at, i) => at - (platform.at[i] as number));
    expect(gaps.length).toBeGreaterThanOrEqual(8);
    // Base 1 s doubling, 20% jitter: the 7th and 8th waits are 64 s and 128 s at least.
    expect(gaps[6]).toBeGreaterThanOrEqual(64_000);
    expect(gaps[7]).toBeGreaterThanOrEqual(128_000);
  });
});
