// Exactly-once replies when the instance sending the outbox loses its PostgreSQL link without
// noticing (#45.3): the server ended its session (so its role locks went, and another instance took
// them), but its link has not seen it yet, and its pool still answers. Its sender's timed look must
// not send a piece the new holder sends too: each due read checks that the link's session still
// holds the outbox roles (outbox-fence.ts). Two instances over one real PostgreSQL, the first one's
// link through a proxy that goes silent (forwards nothing, closes nothing), a fake platform counting
// the sends of each piece.
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import type { ChatDb } from "@agentsvc/chat-store";
import { InstanceLink, Leadership, roleLock } from "@agentsvc/pg-cluster";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Coordination, GatewayRegistry, type SendOptions, type SendResult } from "../src/index.js";
import { OutboxSender } from "../src/outbox-sender.js";
import { OutboxShares } from "../src/outbox-shares.js";
import { MockGateway } from "../src/testing/index.js";
import { postgresStore } from "./pg-locks.js";
import { until } from "./session-harness.js";

const ended: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const end of ended.splice(0).reverse()) await end();
});

/** A TCP proxy to `url`'s server; `silence()` stops forwarding both ways and closes nothing (a link cut unseen). */
async function silentProxy(url: string) {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let silent = false;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on("data", (d) => {
      if (!silent) upstream.write(d);
    });
    upstream.on("data", (d) => {
      if (!silent) client.write(d);
    });
    for (const s of [client, upstream]) s.on("error", () => undefined);
    client.on("close", () => {
      if (!silent) upstream.destroy();
    });
    upstream.on("close", () => {
      if (!silent) client.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const proxied = new URL(url);
  proxied.port = String((server.address() as AddressInfo).port);
  return {
    url: proxied.href,
    silence() {
      silent = true;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Every send of every instance, by idempotency key; each send takes a while (a platform's round trip). */
class CountingPlatform extends MockGateway {
  constructor(private readonly tally: Map<string, number>) {
    super({ name: "mock" });
  }
  override async send(thread: string, text: string, options?: SendOptions): Promise<SendResult | undefined> {
    const key = options?.idempotencyKey ?? "";
    this.tally.set(key, (this.tally.get(key) ?? 0) + 1);
    await new Promise((r) => setTimeout(r, 300));
    return super.send(thread, text, options);
  }
}

const silent = pino({ level: "silent" });

/** One instance's outbox side: its own store pool, its cluster link (leadership of the outbox roles), its sender. */
async function instance(url: string, linkUrl: string, tally: Map<string, number>) {
  const store = await postgresStore(url, 2);
  ended.push(store.close);
  // The link's own check would notice the cut after healthCheckMs: far beyond the test.
  const link = new InstanceLink({
    connectionString: linkUrl,
    healthCheckMs: 600_000,
    serverKeepalive: false,
  });
  await link.connect();
  ended.push(() => link.close());
  const leadership = new Leadership(link, { retryMs: 100, drainMs: 100 });
  ended.push(() => leadership.stop());
  const coordination: Coordination & { roleLock(role: string): ReturnType<typeof roleLock> } = {
    shared: true,
    acquireThread: async () => false,
    releaseThread: async () => {},
    publish: async () => {},
    subscribe: () => () => {},
    onThreadsLost: () => () => {},
    lead(role, handlers) {
      const handle = leadership.lead(role, {
        onAcquired: () => handlers.onLead(),
        onLost: () => void handlers.onLose(),
      });
      return () => handle.stop();
    },
    roleLock: (role) => roleLock(link, role),
  };
  const registry = new GatewayRegistry();
  registry.register(new CountingPlatform(tally));
  const sender = new OutboxSender({
    store: store.db,
    registry,
    loggerFor: () => silent,
    logger: silent,
    options: { idlePollMs: 600_000, baseDelayMs: 200 },
  });
  const dueReads = { settled: 0 };
  const due = store.db.outbox.due.bind(store.db.outbox);
  (store.db.outbox as { due: ChatDb["outbox"]["due"] }).due = (...args) =>
    due(...args).finally(() => {
      dueReads.settled += 1;
    });
  const shares = new OutboxShares({
    coordination,
    sender,
    pinned: () => false,
    gateways: () => ["mock"],
    logger: silent,
    stopping: () => false,
  });
  ended.push(async () => {
    await shares.stop();
    await sender.stop();
  });
  return { db: store.db, link, sender, shares, leadership, dueReads };
}

describe.skipIf(postgresMissing)(
  "the outbox sender of an instance whose PostgreSQL link is cut unseen",
  () => {
    // The server starts in the hook's time, not the test's: under load its start took much of a 20-30 s
    // test budget (timed out at load 25).
    let server: TestPostgres;
    beforeAll(async () => {
      server = await startPostgres();
    });
    afterAll(() => server?.stop());
    it("sends nothing once another instance holds its outbox roles: a piece due later goes out once, from the new holder", async () => {
      const url = await server.createDatabase();
      const proxy = await silentProxy(url);
      const tally = new Map<string, number>();
      const a = await instance(url, proxy.url, tally);
      // Closed before the first instance's cleanup: its link then fails at once instead of waiting on silence.
      ended.push(proxy.close);
      a.shares.lead();
      await until(
        () => a.leadership.leading().length === 4,
        "the first instance leads the four outbox roles",
      );
      const b = await instance(url, url, tally);
      b.shares.lead();
      // A reply due in a while (a retry's backoff, a scheduled piece): the sender arms its look for it.
      const dueAt = Date.now() + 2_500;
      await a.db.outbox.enqueue([
        {
          gateway: "mock",
          thread: "t",
          idemKey: "reply-1",
          kind: "text",
          payload: { text: "hi" },
          notBefore: dueAt,
        },
      ]);
      a.sender.wake();
      await a.sender.settled();
      // The server ends the first instance's link session (its locks go with it); the proxy shows
      // that link nothing, so it still believes it leads.
      const pid = a.link.backendPid;
      proxy.silence();
      const monitor = new InstanceLink({ connectionString: url, healthCheckMs: 0 });
      await monitor.connect();
      ended.push(() => monitor.close());
      await monitor.query("SELECT pg_terminate_backend($1)", [pid]);
      await until(
        () => b.leadership.leading().length === 4,
        "the second instance took the four outbox roles",
      );
      expect(a.link.connected).toBe(true);
      expect(a.leadership.leading()).toHaveLength(4);
      // Both senders' looks come at dueAt; wait for the new holder's send and the old one's read after it.
      const readsBefore = a.dueReads.settled;
      await until(() => (tally.get("reply-1") ?? 0) >= 1, "the piece sent", 15_000);
      await until(
        () => a.dueReads.settled > readsBefore,
        "the first instance's due read at the piece's time",
        15_000,
      );
      await b.sender.settled();
      await a.sender.settled();
      expect(tally.get("reply-1")).toBe(1);
      expect((await b.db.outbox.list("mock", "t"))[0]?.status).toBe("sent");
    });
  },
);
