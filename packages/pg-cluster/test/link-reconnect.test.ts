// When the link's connection drops and PostgreSQL cannot be reached, the link retries with
// exponential backoff: the first retry after about reconnectMinMs, doubling per failed attempt up
// to reconnectMaxMs, each delay between half and all of its step (jitter, here pinned to the middle:
// three quarters). A success starts the steps over; close() stops them. And the health check's
// period: every healthCheckMs (default 10 s), never with 0. Fake timers over a real PostgreSQL
// behind a switchable 127.0.0.1 proxy (refusing = closing each new connection at once).
import { createRequire } from "node:module";
import { postgresMissing } from "@agentsvc/pg-test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { InstanceLink, type InstanceLinkOptions } from "../src/index.js";
import { usePostgres } from "./helpers.js";
import { switchableProxy } from "./proxies.js";

const require = createRequire(import.meta.url);
const pg = require("pg") as typeof import("pg");
const realSetTimeout = globalThis.setTimeout;
const realSleep = (ms: number) => new Promise((r) => realSetTimeout(r, ms));

/** Polls `check` on the real clock (the fake one does not move by itself). */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await realSleep(10);
  }
  throw new Error(`never: ${what}`);
}

describe.skipIf(postgresMissing)("the link's reconnect backoff and health check period", () => {
  const db = usePostgres();

  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  /** Fake clock (Date too, so a connect can be stamped with it), jitter pinned to the middle. */
  function fakeClock() {
    vi.useFakeTimers({
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
    });
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    const connects: number[] = [];
    const original = pg.Client.prototype.connect as (
      this: InstanceType<typeof pg.Client>,
    ) => Promise<InstanceType<typeof pg.Client>>;
    vi.spyOn(pg.Client.prototype, "connect").mockImplementation(function (
      this: InstanceType<typeof pg.Client>,
    ) {
      connects.push(Date.now());
      return original.call(this);
    } as typeof pg.Client.prototype.connect);
    return connects;
  }

  /** A link through a new switchable proxy on the fake clock (reconnectMinMs 1000), the contexts of its errors kept. */
  async function proxiedLink(options: Partial<InstanceLinkOptions> = {}) {
    const proxy = await switchableProxy(db.url);
    const connects = fakeClock();
    const errors: string[] = [];
    const link = new InstanceLink({
      connectionString: proxy.url,
      healthCheckMs: 0,
      reconnectMinMs: 1000,
      onError: (_e, context) => errors.push(context),
      ...options,
    });
    return { proxy, connects, errors, link };
  }

  it("retries after 750, 1500, 3000, 3000 ms (min 1000, max 4000), starts over after a success, and stops at close()", async () => {
    const { proxy, connects, errors, link } = await proxiedLink({ reconnectMaxMs: 4000 });
    try {
      await link.connect();
      expect(connects).toHaveLength(1);
      const attempts = () => errors.filter((c) => c === "reconnect attempt").length;
      /** The next connect comes exactly `ms` after the last failure, not a millisecond earlier. */
      const next = async (ms: number) => {
        const before = connects.length;
        await vi.advanceTimersByTimeAsync(ms - 1);
        expect(connects).toHaveLength(before);
        await vi.advanceTimersByTimeAsync(1);
        expect(connects).toHaveLength(before + 1);
      };

      proxy.refusing = true;
      proxy.cut();
      await until("the drop is reported", () => errors.includes("connection dropped"));
      for (const [n, ms] of [750, 1500, 3000, 3000].entries()) {
        await next(ms);
        await until(`attempt ${n + 1} failed`, () => attempts() === n + 1);
      }
      proxy.refusing = false;
      await next(3000);
      await until("reconnected", () => link.connected);
      expect(link.generation).toBe(2);

      proxy.refusing = true;
      proxy.cut();
      await until("the second drop is reported", () => !link.connected);
      await next(750);
      await until("its first attempt failed", () => attempts() === 5);
      await link.close();
      const after = connects.length;
      await vi.advanceTimersByTimeAsync(60_000);
      expect(connects).toHaveLength(after);
      expect(attempts()).toBe(5);
    } finally {
      await link.close();
      await proxy.close();
    }
  });

  it("without onError, a failed attempt is retried all the same", async () => {
    const { proxy, connects, link } = await proxiedLink({ onError: undefined });
    try {
      await link.connect();
      proxy.refusing = true;
      proxy.cut();
      await until("the drop is noticed", () => !link.connected);
      await vi.advanceTimersByTimeAsync(750);
      expect(connects).toHaveLength(2);
      // The refusal lands on the real clock: move the fake one on in steps until the retry is made.
      for (let ms = 0; connects.length < 3 && ms < 10_000; ms += 100) {
        await vi.advanceTimersByTimeAsync(100);
        await realSleep(5);
      }
      expect(connects).toHaveLength(3);
    } finally {
      await link.close();
      await proxy.close();
    }
  });

  it("keeps one timer, its health check's, across a drop and a reconnect, and none after close()", async () => {
    const { proxy, link } = await proxiedLink({ healthCheckMs: 5000 });
    try {
      await link.connect();
      await vi.advanceTimersByTimeAsync(5000); // a health check, its SELECT 1 answered
      await until("only the health check's interval is left", () => vi.getTimerCount() === 1);
      proxy.cut();
      await until("the drop is noticed", () => !link.connected);
      await vi.advanceTimersByTimeAsync(750);
      await until("reconnected", () => link.connected);
      await until("only the new session's health check is left", () => vi.getTimerCount() === 1);
      await link.close();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      await link.close();
      await proxy.close();
    }
  });

  it("close() stops waiting for a server that does not answer after 5 s, and destroys the socket", async () => {
    fakeClock();
    const link = new InstanceLink({ connectionString: db.url, healthCheckMs: 0 });
    await link.connect();
    const pid = link.backendPid!;
    // A frozen server process: the socket stays open, nothing answers the end of the session.
    process.kill(pid, "SIGSTOP");
    try {
      let closed = false;
      const closing = link.close().then(() => {
        closed = true;
      });
      await vi.advanceTimersByTimeAsync(4999);
      await realSleep(50);
      expect(closed).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await closing;
      expect(closed).toBe(true);
    } finally {
      process.kill(pid, "SIGCONT");
    }
  });

  it("a failed attempt after close() is not reported and not retried", async () => {
    const { proxy, connects, errors, link } = await proxiedLink();
    try {
      await link.connect();
      proxy.holding = true; // the next connection is accepted and never answered
      proxy.cut();
      await until("the drop is reported", () => errors.includes("connection dropped"));
      await vi.advanceTimersByTimeAsync(750);
      expect(connects).toHaveLength(2);
      const closing = link.close();
      proxy.holding = false;
      proxy.cut(); // the attempt in flight fails now, after close()
      await closing;
      await realSleep(100);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(connects).toHaveLength(2);
      expect(errors).toEqual(["connection dropped"]);
    } finally {
      await link.close();
      await proxy.close();
    }
  });

  it("a connection attempt nobody answers fails after connectTimeoutMs, 10 s by default", async () => {
    const proxy = await switchableProxy(db.url);
    proxy.holding = true;
    fakeClock();
    try {
      for (const [connectTimeoutMs, ms] of [
        [undefined, 10_000],
        [2_000, 2_000],
      ] as const) {
        const link = new InstanceLink({
          connectionString: proxy.url,
          healthCheckMs: 0,
          ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
        });
        let failed: unknown;
        const connecting = link.connect().catch((e: unknown) => {
          failed = e;
        });
        await until("the proxy holds the connection", () => proxy.connections > 0);
        proxy.connections = 0;
        await vi.advanceTimersByTimeAsync(ms - 1);
        await realSleep(50);
        expect(failed).toBeUndefined();
        await vi.advanceTimersByTimeAsync(1);
        await connecting;
        expect(String(failed)).toMatch(/timeout/i);
        await link.close();
      }
    } finally {
      await proxy.close();
    }
  });

  /** Runs `work` counting the SELECT 1 statements sent, and how many of them were answered so far. */
  async function selectOnes(work: (counts: { sent: number; answered: number }) => Promise<void>) {
    const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const original = proto.query;
    const counts = { sent: 0, answered: 0 };
    proto.query = function (this: unknown, ...args: unknown[]) {
      const result = original.apply(this, args);
      if (args[0] === "SELECT 1" && result instanceof Promise) {
        counts.sent += 1;
        void result.then(() => (counts.answered += 1));
      }
      return result;
    };
    try {
      await work(counts);
    } finally {
      proto.query = original;
    }
    return counts.sent;
  }

  it("on a link with nothing else to run, the health check sends SELECT 1 every healthCheckMs, every 10 s by default, and never with 0", async () => {
    fakeClock();
    const quietLink = async (healthCheckMs: number | undefined) => {
      const link = new InstanceLink({
        connectionString: db.url,
        ...(healthCheckMs === undefined ? {} : { healthCheckMs }),
      });
      try {
        return await selectOnes(async (counts) => {
          await link.connect();
          for (let i = 0; i < 25; i++) {
            await vi.advanceTimersByTimeAsync(1000);
            await until("the SELECT 1 answered", () => counts.answered === counts.sent);
          }
        });
      } finally {
        await link.close();
      }
    };
    expect(await quietLink(undefined)).toBe(2);
    expect(await quietLink(5000)).toBe(5);
    expect(await quietLink(0)).toBe(0);
  });

  it("sends no SELECT 1 while the link's own statements are answered within healthCheckMs, and one a period after the last answer", async () => {
    fakeClock();
    const link = new InstanceLink({ connectionString: db.url, healthCheckMs: 5000 });
    try {
      const busy = await selectOnes(async () => {
        await link.connect();
        for (let i = 0; i < 20; i++) {
          await vi.advanceTimersByTimeAsync(1000);
          expect(await link.heldAnywhere("agentsvc:test:busy-link")).toBe(false);
        }
      });
      expect(busy).toBe(0);
      const quiet = await selectOnes(async (counts) => {
        await vi.advanceTimersByTimeAsync(4999);
        expect(counts.sent).toBe(0);
        await vi.advanceTimersByTimeAsync(1);
        await until("the SELECT 1 answered", () => counts.answered === 1);
      });
      expect(quiet).toBe(1);
    } finally {
      await link.close();
    }
  });
});
