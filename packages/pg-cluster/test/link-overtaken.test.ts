// The link when a drop overtakes work in progress, against a real PostgreSQL: a session that ends
// while the link is still setting it up, and a reconnect whose listeners are still running when the
// next drop comes. Written from the survivors of `pnpm mutate pg-cluster src/link.ts` (#44).
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { InstanceLink } from "../src/index.js";
import { terminate, usePostgres, waitFor } from "./helpers.js";
import { holdingProxy } from "./proxies.js";

describe.skipIf(postgresMissing)("InstanceLink overtaken by a drop", () => {
  const pg = usePostgres();
  const quick = { healthCheckMs: 0, reconnectMinMs: 50, reconnectMaxMs: 200 };

  /** The pid of the one session named `name` once it sits idle after `query` (prefix), else undefined. */
  const idleAfter = async (name: string, query: string) =>
    (
      await pg.mon.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle' AND starts_with(query, $2)",
        [name, query],
      )
    ).rows[0]?.pid;

  it("a session that ends while its keepalive settings are answered fails connect() with the server's reason, and is not used", async () => {
    // The proxy holds back the answer to the SET statements; the server then ends the session, so
    // the answer and the FATAL reach the link together: the SET succeeds, and the connection is gone.
    const proxy = await holdingProxy(new URL(pg.url));
    proxy.holdWhen = (bytes) => bytes.includes("SET tcp_keepalives_idle");
    const url = new URL(pg.url);
    url.port = String(proxy.port);
    const link = new InstanceLink({
      ...quick,
      connectionString: url.href,
      applicationName: "overtaken-setup",
    });
    try {
      const connecting = link.connect().catch((error: unknown) => error);
      const pid = await waitFor(
        "the SET statements answered on the server",
        () => idleAfter("overtaken-setup", "SET tcp_keepalives_idle"),
        5_000,
      );
      await terminate(pg.mon, pid);
      await waitFor("the server ended the session", () => proxy.serverEnded, 5_000);
      proxy.release();
      const failed = await connecting;
      expect(failed).toBeInstanceOf(Error);
      expect((failed as Error).message).toMatch(/terminating connection due to administrator command/);
      expect(link.connected).toBe(false);
      expect(link.generation).toBe(0);
    } finally {
      await link.close();
      await proxy.close();
    }
  });

  it("a reconnect's listeners stop at the next drop: the ones after are told only of the newer session", async () => {
    const link = await pg.link(quick);
    let resume!: () => void;
    const resumed = new Promise<void>((r) => {
      resume = r;
    });
    const told: number[] = [];
    link.onReconnect(async (generation) => {
      if (generation !== 2) return;
      // The link drops again while this listener of generation 2 still runs.
      await terminate(pg.mon, link.backendPid!);
      await resumed;
    });
    link.onReconnect((generation) => void told.push(generation));
    await terminate(pg.mon, link.backendPid!);
    await waitFor("generation 3's listeners ran", () => told.length > 0, 5_000);
    resume();
    // One macrotask turn: every microtask of generation 2's listener loop has run by then.
    await new Promise((r) => setImmediate(r));
    expect(told).toEqual([3]);
    expect(link.generation).toBe(3);
  });
});
