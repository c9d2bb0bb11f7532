// The outbox sender on its own: per-thread order, retries, and a platform call that never settles.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { GatewayRegistry } from "../src/index.js";
import { OutboxSender } from "../src/outbox-sender.js";
import { createMemorySessionStore, MockGateway } from "../src/testing/index.js";
import { until } from "./session-harness.js";

/** A gateway whose first send of a chosen text never settles (a hung platform call). */
class HangsOnce extends MockGateway {
  hung = false;
  override send(...args: Parameters<MockGateway["send"]>): ReturnType<MockGateway["send"]> {
    if (!this.hung && args[1] === "a1") {
      this.hung = true;
      return new Promise(() => {});
    }
    return super.send(...args);
  }
}

describe("outbox sender", () => {
  it("a send that never settles times out and is retried, without holding back other threads or reordering its own", async () => {
    const store = createMemorySessionStore();
    const gateway = new HangsOnce({ name: "mock" });
    const registry = new GatewayRegistry();
    registry.register(gateway);
    const logger = pino({ level: "silent" });
    const sender = new OutboxSender({
      store,
      registry,
      loggerFor: () => logger,
      logger,
      options: { sendTimeoutMs: 100, baseDelayMs: 10, maxDelayMs: 20 },
    });
    const piece = (thread: string, key: string, text: string) => ({
      gateway: "mock",
      thread,
      idemKey: key,
      kind: "text" as const,
      payload: { text },
    });
    await store.outbox.enqueue([piece("A", "a1", "a1"), piece("A", "a2", "a2"), piece("B", "b1", "b1")]);
    sender.start();
    await until(
      () => gateway.textsTo("A").length === 2 && gateway.textsTo("B").length === 1,
      "every piece sent",
      5_000,
    );
    await sender.stop();
    expect(gateway.hung).toBe(true);
    expect(gateway.textsTo("A")).toEqual(["a1", "a2"]);
    expect(gateway.textsTo("B")).toEqual(["b1"]);
  });
});

describe("outbox sender and the operator", () => {
  const piece = (thread: string, key: string) => ({
    gateway: "mock",
    thread,
    idemKey: key,
    kind: "text" as const,
    payload: { text: key },
  });

  it("an idle sender finds a piece another process put back in the queue (agentsvc outbox retry) without being woken", async () => {
    const store = createMemorySessionStore();
    const gateway = new MockGateway({ name: "mock" });
    const registry = new GatewayRegistry();
    registry.register(gateway);
    const logger = pino({ level: "silent" });
    const sender = new OutboxSender({
      store,
      registry,
      loggerFor: () => logger,
      logger,
      options: { idlePollMs: 50 },
    });
    sender.start();
    await sender.settled();
    // Written behind the sender's back: nobody calls wake().
    await store.outbox.enqueue([piece("A", "late")]);
    await until(() => gateway.textsTo("A").length === 1, "the piece sent by the idle poll", 5_000);
    await sender.stop();
    expect(gateway.textsTo("A")).toEqual(["late"]);
  });

  it("a dead letter is logged once at error with its gateway, thread and reason", async () => {
    const store = createMemorySessionStore();
    const gateway = new MockGateway({ name: "mock" });
    gateway.failures.push({ status: 403 });
    const registry = new GatewayRegistry();
    registry.register(gateway);
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      { level: "info" },
      { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const sender = new OutboxSender({ store, registry, loggerFor: () => logger, logger });
    await store.outbox.enqueue([piece("A", "refused")]);
    sender.start();
    await until(
      async () => (await store.outbox.list("mock", "A"))[0]?.status === "dead",
      "the piece dead",
      5_000,
    );
    await sender.stop();
    const errors = lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ gateway: "mock", thread: "A" });
    expect(String(errors[0]?.err)).toContain("403");
    expect(String(errors[0]?.msg)).toMatch(/dead-lettered/);
  });
});
