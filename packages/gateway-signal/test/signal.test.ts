import { GatewaySendError } from "@agentsvc/adapter-kit";
import { eventually, type FakeSignalDaemon, startSignalDaemon } from "@agentsvc/testkit";
import { gatewayAlone, type StartedGateway, startGatewayAlone } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { reconnectDelay, SignalGateway, type SignalGatewayOptions } from "../src/index.js";
import { ACCOUNT } from "./harness.js";

const env = { SIGNAL_ACCOUNT: ACCOUNT };
let daemon: FakeSignalDaemon | undefined;
let gateway: SignalGateway | undefined;
let alone: StartedGateway | undefined;

afterEach(async () => {
  await alone?.stop();
  await daemon?.close();
  gateway = undefined;
  alone = undefined;
  daemon = undefined;
});

async function started(options: Partial<SignalGatewayOptions> = {}): Promise<StartedGateway> {
  daemon ??= await startSignalDaemon({ accounts: [ACCOUNT] });
  gateway = new SignalGateway({
    accountEnvVar: "SIGNAL_ACCOUNT",
    httpUrl: daemon.url,
    reconnect: { baseMs: 20, maxMs: 200 },
    ...options,
  });
  alone = await startGatewayAlone(gateway, { env });
  return alone;
}

/**
 * A fetch whose events stream the gateway reads through a stream that pulls only when asked: once
 * `reads()` grew past n, the gateway had handled the n-th chunk (its activity noted) and asked for more.
 */
function readsOfEventStream() {
  let reads = 0;
  const counted: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (!String(input).includes("/api/v1/events") || !res.body) return res;
    const source = res.body.getReader();
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          reads++;
          const { value, done } = await source.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: (reason) => source.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: res.status, headers: res.headers });
  };
  return { fetch: counted, reads: () => reads };
}

const scheduled = (logs: { msg: string; delayMs?: unknown }[]) =>
  logs.filter((l) => l.msg === "signal-cli reconnect scheduled").map((l) => l.delayMs as number);

describe("signal gateway", () => {
  it("refuses to start without an account, with a MissingConfigError naming the variable", async () => {
    gateway = new SignalGateway({ accountEnvVar: "SIGNAL_ACCOUNT", httpUrl: "http://127.0.0.1:9" });
    const t = gatewayAlone(gateway, { env: {} });
    alone = t;
    const err = await gateway.start(t.context).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe("MissingConfigError");
    expect((err as Error).message).toContain("SIGNAL_ACCOUNT");
    expect(t.scheduler.list()).toHaveLength(0);
  });

  it("reconnect delays double from 2 s to a 60 s cap and add at most 20% jitter", () => {
    const floor = [2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000];
    for (const [i, base] of floor.entries()) {
      expect(reconnectDelay(i + 1, () => 0)).toBe(base);
      expect(reconnectDelay(i + 1, () => 0.5)).toBe(base * 1.1);
      const top = reconnectDelay(i + 1, () => 0.999_999);
      expect(top).toBeGreaterThan(base);
      expect(top).toBeLessThanOrEqual(base * 1.2);
    }
  });

  it("an unreachable daemon is an ordinary backoff cycle: start succeeds, delays grow to the cap, and it connects once the daemon is up", async () => {
    daemon = await startSignalDaemon({ accounts: [ACCOUNT] });
    await daemon.refuse();
    const t = await started({ reconnect: { baseMs: 20, maxMs: 80, random: () => 0.5 } });
    await eventually(() => scheduled(t.logs()).length >= 5, "five reconnect attempts");
    expect(scheduled(t.logs()).slice(0, 5)).toEqual([22, 44, 88, 88, 88]);
    expect(t.logs().some((l) => l.msg.includes("unreachable") && l.level === 40)).toBe(true);
    await daemon.resume();
    await eventually(() => daemon?.openStreams === 1, "the stream to open once the daemon is back");
    daemon.receive(ACCOUNT, { from: "+15550000001", text: "back again" });
    await eventually(() => t.delivered.length === 1, "the message after the outage");
    // A successful connection resets the backoff to its first step.
    await daemon.restart();
    await eventually(() => scheduled(t.logs()).length >= 6, "the reconnect after the restart");
    expect(scheduled(t.logs()).at(-1)).toBe(22);
  });

  it("the idle watchdog reconnects only when the clock passes 120 s without events or keepalives", async () => {
    let now = 0;
    daemon = await startSignalDaemon({ accounts: [ACCOUNT], keepaliveMs: 60_000 });
    const t = await started({ now: () => now, watchdog: { checkMs: 20 } });
    await eventually(() => gateway?.connected === true, "the first connection");
    await new Promise((r) => setTimeout(r, 150));
    now += 119_000;
    await new Promise((r) => setTimeout(r, 150));
    expect(daemon.connections).toHaveLength(1);
    now += 2_000;
    await eventually(() => daemon?.connections.length === 2, "a watchdog reconnect");
    expect(t.logs().some((l) => l.msg.includes("silent"))).toBe(true);
  });

  it("keepalives keep a quiet stream open; a daemon gone silent is reopened by the watchdog", async () => {
    // The watchdog's clock is the test's: on the real one a loaded machine stalled the process past
    // idleMs between two keepalives and the check came first (a second connection, red under load).
    let now = 0;
    const stream = readsOfEventStream();
    daemon = await startSignalDaemon({ accounts: [ACCOUNT], keepaliveMs: 30 });
    await started({ now: () => now, watchdog: { checkMs: 20, idleMs: 200 }, fetch: stream.fetch });
    await eventually(() => gateway?.connected === true, "the first connection");
    // Five steps of 150 ms, 750 ms in all: only the keepalives read in each step keep it open.
    for (let step = 0; step < 5; step++) {
      now += 150;
      const asked = stream.reads();
      await eventually(() => stream.reads() > asked, "a keepalive read after the clock moved");
    }
    expect(daemon.connections).toHaveLength(1);
    daemon.silent(true);
    await eventually(() => {
      now += 250;
      return daemon?.connections.length === 2;
    }, "a reconnect after silence");
  });

  it("takes direct messages and ignores group messages and receipts", async () => {
    const t = await started();
    await eventually(() => daemon?.openStreams === 1, "the stream");
    daemon?.receive(ACCOUNT, { from: "+15550000002", text: "in the group", groupId: "Z3JvdXA=" });
    daemon?.receiveRaw(ACCOUNT, { source: "+15550000001", timestamp: 5, receiptMessage: { isRead: true } });
    const ts = daemon?.receive(ACCOUNT, {
      from: "+15550000001",
      uuid: "aci-1",
      name: "Ann",
      text: "just me",
    });
    await eventually(() => t.delivered.length === 1, "the direct message");
    await new Promise((r) => setTimeout(r, 100));
    expect(t.delivered).toHaveLength(1);
    expect(t.delivered[0]).toMatchObject({
      thread: "+15550000001",
      text: "just me",
      author: { id: "aci-1", displayName: "Ann" },
      dedupKey: `aci-1:${ts}`,
    });
    await eventually(() => (daemon?.receipts.length ?? 0) === 1, "the read receipt");
    expect(daemon?.receipts).toEqual([{ recipient: "+15550000001", targetTimestamps: [ts], type: "read" }]);
  });

  it("sends with JSON-RPC 2.0 method send: account, recipient list and message, as application/json", async () => {
    await started();
    const result = await gateway?.send("+15550000001", "hello there", { idempotencyKey: "k", attempt: 1 });
    const call = daemon?.rpcCalls.find((c) => c.method === "send");
    expect(call?.contentType).toBe("application/json");
    expect(call?.params).toEqual({ account: ACCOUNT, recipient: ["+15550000001"], message: "hello there" });
    expect(result?.messageId).toBe(String(daemon?.sent[0]?.timestamp));
  });

  it("logs JSON-RPC errors; invalid params are permanent, other errors are retried", async () => {
    const t = await started();
    daemon?.failNext({ kind: "rpc", code: -32602, message: "Invalid recipient" });
    const bad = await gateway
      ?.send("nobody", "x", { idempotencyKey: "k", attempt: 1 })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(GatewaySendError);
    expect((bad as GatewaySendError).permanent).toBe(true);
    daemon?.failNext({ kind: "rpc", code: -1, message: "Untrusted identity" });
    const later = await gateway
      ?.send("+15550000001", "x", { idempotencyKey: "k", attempt: 1 })
      .catch((e: unknown) => e);
    expect((later as GatewaySendError).permanent).toBe(false);
    const logged = t.logs().filter((l) => l.level === 50 && l.msg === "signal-cli send failed");
    expect(logged).toHaveLength(2);
    expect(JSON.stringify(logged[0])).toContain("Invalid recipient");
  });

  it("a message that could not be recorded is retried in place until it is, and read on in order, on the same stream", async () => {
    const t = await started({ recordRetry: { baseMs: 20, maxMs: 80 } });
    await eventually(() => daemon?.openStreams === 1, "the stream");
    let failures = 0;
    t.deliverHook = async (inbound) => {
      if (inbound.text === "keep me" && failures < 4) {
        failures++;
        throw new Error("store unavailable");
      }
    };
    daemon?.receive(ACCOUNT, { from: "+15550000001", text: "keep me" });
    daemon?.receive(ACCOUNT, { from: "+15550000001", text: "and me, after it" });
    await eventually(() => t.delivered.length === 2, "both messages recorded");
    expect(t.delivered.map((m) => m.text)).toEqual(["keep me", "and me, after it"]);
    expect(failures).toBe(4);
    // signal-cli cannot replay, so the stream must not be dropped to have it sent again.
    expect(daemon?.connections).toHaveLength(1);
    // Nothing is acknowledged before it is recorded: one read receipt per message, after it.
    await eventually(() => daemon?.receipts.length === 2, "the read receipts");
    const retried = t
      .logs()
      .filter((l) => l.msg === "recording an inbound message failed; retrying in place");
    expect(retried.length).toBe(4);
  });

  it("a message whose recording was given up (the gateway stopped while it was being recorded) gets no read receipt", async () => {
    const t = await started({ recordRetry: { baseMs: 20, maxMs: 40 } });
    await eventually(() => daemon?.openStreams === 1, "the stream");
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let attempts = 0;
    // The first try fails at once; the second hangs until the gateway has stopped, then fails.
    t.deliverHook = async () => {
      attempts += 1;
      if (attempts >= 2) await held;
      throw new Error("store unavailable");
    };
    daemon?.receive(ACCOUNT, { from: "+15550000001", text: "never recorded" });
    await eventually(() => attempts >= 2, "the second try in flight");
    await gateway?.stop();
    release();
    // A receipt, were one sent, would follow the failed try at once.
    await new Promise((r) => setTimeout(r, 200));
    expect(t.delivered).toEqual([]);
    expect(daemon?.rpcCalls.filter((c) => c.method === "sendReceipt")).toEqual([]);
    expect(daemon?.receipts).toEqual([]);
  });

  it("the idle watchdog leaves the stream alone while a message waits to be recorded", async () => {
    let now = 0;
    const t = await started({
      watchdog: { checkMs: 10, idleMs: 50 },
      now: () => now,
      recordRetry: { baseMs: 30, maxMs: 30 },
    });
    await eventually(() => daemon?.openStreams === 1, "the stream");
    let fail = true;
    t.deliverHook = async () => {
      if (fail) throw new Error("store unavailable");
    };
    daemon?.receive(ACCOUNT, { from: "+15550000001", text: "slow store" });
    await eventually(
      () => t.logs().some((l) => l.msg === "recording an inbound message failed; retrying in place"),
      "a retry",
    );
    now += 10_000; // far past idleMs: a watchdog that did not know would reopen the stream now
    await new Promise((r) => setTimeout(r, 100));
    fail = false;
    await eventually(() => t.delivered.length === 1, "the message recorded");
    expect(daemon?.connections).toHaveLength(1);
  });

  it("sends no Last-Event-ID: signal-cli's events have no ids to resume from", async () => {
    await started();
    await eventually(() => daemon?.openStreams === 1, "the stream");
    daemon?.receive(ACCOUNT, { from: "+15550000001", text: "one" });
    await daemon?.restart();
    await eventually(
      () => (daemon?.connections.length ?? 0) >= 2 && daemon?.openStreams === 1,
      "the reconnect",
    );
    expect(daemon?.connections.map((c) => c.lastEventId)).toEqual([undefined, undefined]);
  });

  it("with the daemon in receive mode on-connection, a message sent while the gateway was stopped arrives when it starts again", async () => {
    daemon = await startSignalDaemon({ accounts: [ACCOUNT], receiveMode: "on-connection" });
    const t1 = await started();
    await eventually(() => daemon?.openStreams === 1, "the stream");
    daemon.receive(ACCOUNT, { from: "+15550000001", text: "one" });
    await eventually(() => t1.delivered.length === 1, "the first message");
    await gateway?.stop();
    await eventually(() => daemon?.openStreams === 0, "the stream closed");
    daemon.receive(ACCOUNT, { from: "+15550000001", text: "two (while stopped)" });
    const t2 = await started();
    await eventually(() => t2.delivered.length === 1, "the message sent while stopped");
    expect(t2.delivered[0]?.text).toBe("two (while stopped)");
  });
});
