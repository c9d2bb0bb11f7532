// The InstanceLink at its edges, against a real PostgreSQL: a second connect() and one after
// close(), what a caller is told while the link is down, its session settings (name, keepalive, or
// none), the callbacks it runs on a drop and a reconnect (and the unsubscribed ones it does not),
// and what it reports when a callback throws. Written from the survivors of
// `pnpm mutate pg-cluster src/link.ts` (#44).
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { InstanceLink, LinkDownError, type LinkLost, type LinkNotification } from "../src/index.js";
import { advisoryKey } from "../src/keys.js";
import { limitedRole, lockHolders, sleep, terminate, usePostgres, waitFor } from "./helpers.js";

describe.skipIf(postgresMissing)("InstanceLink at its edges", () => {
  const pg = usePostgres();
  const quick = { healthCheckMs: 0, reconnectMinMs: 50, reconnectMaxMs: 200 };

  /** Sessions open now whose application_name is `name`. */
  const sessionsNamed = async (name: string) =>
    (await pg.mon.query("SELECT pid FROM pg_stat_activity WHERE application_name = $1", [name])).rowCount;

  it("a second connect() keeps the session; connect() after close() is refused", async () => {
    const link = await pg.link(quick);
    const pid = link.backendPid;
    await link.connect();
    expect(link.backendPid).toBe(pid);
    expect(link.generation).toBe(1);
    await link.close();
    expect(link.backendPid).toBeUndefined();
    await expect(link.connect()).rejects.toThrow(/^InstanceLink: closed$/);
    expect(link.connected).toBe(false);
  });

  it("while the link is down, query() names the statement in a LinkDownError and lock calls answer false", async () => {
    const link = new InstanceLink({ connectionString: pg.url, ...quick });
    const error = await link.query("SELECT  pg_notify($1, $2)", ["c", "p"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LinkDownError);
    expect((error as Error).name).toBe("LinkDownError");
    expect((error as Error).message).toBe(
      "SELECT pg_notify($1,: the PostgreSQL link is not connected (it reconnects by itself; retry later)",
    );
    expect(await link.tryLock("agentsvc:test:down")).toBe(false);
    expect(await link.unlock("agentsvc:test:down")).toBe(false);
    expect(await link.unlockAndNotify("agentsvc:test:down", { channel: "c", payload: "p" })).toBe("not-held");
    expect(await link.holdsOnServer("agentsvc:test:down")).toBe(false);
    expect(link.heldLocks()).toEqual([]);
    await link.close();
  });

  it("a query without parameters runs; holdsOnServer is false for a lock this link does not count as held", async () => {
    const link = await pg.link(quick);
    expect(await link.query<{ n: number }>("SELECT 2 AS n")).toEqual([{ n: 2 }]);
    expect(await link.holdsOnServer("agentsvc:test:never")).toBe(false);
    expect(await link.tryLock("agentsvc:test:held")).toBe(true);
    expect(await link.holdsOnServer("agentsvc:test:held")).toBe(true);
    expect(link.heldLocks()).toEqual(["agentsvc:test:held"]);
    expect(await link.unlock("agentsvc:test:held")).toBe(true);
    expect(link.heldLocks()).toEqual([]);
    expect(await link.holdsOnServer("agentsvc:test:held")).toBe(false);
  });

  it("unlock() gives the lock back on the server, so another session takes it at once", async () => {
    const link = await pg.link(quick);
    expect(await link.tryLock("agentsvc:test:given-back")).toBe(true);
    expect(await lockHolders(pg.mon, "agentsvc:test:given-back")).toEqual([link.backendPid]);
    expect(await link.unlock("agentsvc:test:given-back")).toBe(true);
    expect(await lockHolders(pg.mon, "agentsvc:test:given-back")).toEqual([]);
  });

  it("tryLock answers false for a lock another session holds, and true to only one of two tries at once", async () => {
    const link = await pg.link(quick);
    const key = advisoryKey("agentsvc:test:theirs").toString();
    await pg.mon.query("SELECT pg_advisory_lock($1)", [key]);
    try {
      expect(await link.tryLock("agentsvc:test:theirs")).toBe(false);
      expect(link.isHeld("agentsvc:test:theirs")).toBe(false);
    } finally {
      await pg.mon.query("SELECT pg_advisory_unlock($1)", [key]);
    }
    const tries = [link.tryLock("agentsvc:test:twice"), link.tryLock("agentsvc:test:twice")];
    expect(await Promise.all(tries)).toEqual([true, false]);
    // Held once on the server: one unlock gives it back.
    expect(await link.unlock("agentsvc:test:twice")).toBe(true);
    expect(await lockHolders(pg.mon, "agentsvc:test:twice")).toEqual([]);
  });

  it("a lock the session took outside tryLock is not the link's: holdsOnServer and unlock answer false and leave it, unlockAndNotify not-held", async () => {
    const link = await pg.link(quick);
    await link.query("SELECT pg_advisory_lock($1)", [advisoryKey("agentsvc:test:raw").toString()]);
    expect(await link.holdsOnServer("agentsvc:test:raw")).toBe(false);
    expect(await link.unlock("agentsvc:test:raw")).toBe(false);
    expect(await link.unlockAndNotify("agentsvc:test:raw", { channel: "c", payload: "p" })).toBe("not-held");
    expect(await lockHolders(pg.mon, "agentsvc:test:raw")).toEqual([link.backendPid]);
  });

  it("heldAnywhere asks the server whether any session holds a lock, and rejects while the link is down", async () => {
    const link = await pg.link(quick);
    const other = await pg.link(quick);
    expect(await link.heldAnywhere("agentsvc:test:anywhere")).toBe(false);
    expect(await other.tryLock("agentsvc:test:anywhere")).toBe(true);
    expect(await link.heldAnywhere("agentsvc:test:anywhere")).toBe(true);
    expect(await link.tryLock("agentsvc:test:mine")).toBe(true);
    expect(await link.heldAnywhere("agentsvc:test:mine")).toBe(true);
    const down = new InstanceLink({ connectionString: pg.url, ...quick });
    const error = await down.heldAnywhere("agentsvc:test:anywhere").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LinkDownError);
    expect((error as Error).message).toMatch(/^advisory busy: /);
  });

  it("its lock statement is prepared once per session under its own name, not parsed for every request", async () => {
    const link = await pg.link(quick);
    expect(await link.tryLock("agentsvc:test:prepared")).toBe(true);
    expect(await link.unlock("agentsvc:test:prepared")).toBe(true);
    expect(await link.query("SELECT name FROM pg_prepared_statements")).toEqual([
      { name: "agentsvc-advisory-locks" },
    ]);
  });

  it("names its session as told, and leaves the server's keepalive alone when serverKeepalive is false", async () => {
    const server = await pg.mon.query<{ idle: string }>(
      "SELECT current_setting('tcp_keepalives_idle') AS idle",
    );
    const link = await pg.link({ ...quick, applicationName: "edge-named", serverKeepalive: false });
    expect(await sessionsNamed("edge-named")).toBe(1);
    expect(await link.query("SELECT current_setting('tcp_keepalives_idle') AS idle")).toEqual(server.rows);
    const defaults = await pg.link(quick);
    expect(await defaults.query("SELECT current_setting('tcp_keepalives_idle') AS idle")).toEqual([
      { idle: "10" },
    ]);
    expect(
      await defaults.query(
        "SELECT current_setting('tcp_keepalives_interval') AS interval, current_setting('tcp_keepalives_count') AS count",
      ),
    ).toEqual([{ interval: "5", count: "3" }]);
  });

  it("a keepalive that is not whole seconds >= 0 fails connect() and leaves no session open", async () => {
    for (const bad of [1.5, -1]) {
      const link = new InstanceLink({
        connectionString: pg.url,
        ...quick,
        applicationName: "edge-bad-keepalive",
        serverKeepalive: { idleS: 10, intervalS: bad, count: 3 },
      });
      await expect(link.connect()).rejects.toThrow(
        `serverKeepalive: expected whole seconds >= 0 (got ${bad})`,
      );
      expect(link.connected).toBe(false);
      await link.close();
    }
    const zero = await pg.link({ ...quick, serverKeepalive: { idleS: 0, intervalS: 0, count: 0 } });
    expect(zero.connected).toBe(true);
    await waitFor(
      "the refused sessions ended",
      async () => (await sessionsNamed("edge-bad-keepalive")) === 0,
      5_000,
    );
  });

  it("on a drop: onError says so, every lock's callback runs (one that throws is reported), listeners get the names and generation", async () => {
    const errors: [string, string][] = [];
    const link = await pg.link({ ...quick, onError: (e, c) => errors.push([c, e.message]) });
    const calls: string[] = [];
    expect(
      await link.tryLock("agentsvc:test:a", () => {
        throw "callback failed";
      }),
    ).toBe(true);
    expect(await link.tryLock("agentsvc:test:b", () => calls.push("b"))).toBe(true);
    expect(await link.tryLock("agentsvc:test:c")).toBe(true); // no callback: nothing to run or report
    const lost: LinkLost[] = [];
    const gone: LinkLost[] = [];
    link.onLost((l) => lost.push(l));
    const off = link.onLost((l) => gone.push(l));
    off();
    link.onLost(() => {
      throw new Error("listener failed");
    });
    await terminate(pg.mon, link.backendPid!);
    await waitFor("lost", () => lost[0], 5_000);
    expect(calls).toEqual(["b"]);
    expect(gone).toEqual([]);
    expect(lost[0]!.names.sort()).toEqual(["agentsvc:test:a", "agentsvc:test:b", "agentsvc:test:c"]);
    expect(lost[0]!.generation).toBe(1);
    expect(errors.map(([c]) => c)).toEqual(["connection dropped", "lock lost callback", "onLost"]);
    expect(errors[1]![1]).toBe("callback failed");
    expect(errors[2]![1]).toBe("listener failed");
    expect(link.isHeld("agentsvc:test:b")).toBe(false);
    // One drop, one report and one reconnect, though the connection ended with an error and an end.
    await waitFor("reconnected", () => link.connected, 5_000);
    await sleep(300);
    expect(lost).toHaveLength(1);
    expect(errors.filter(([c]) => c === "connection dropped")).toHaveLength(1);
    expect(link.generation).toBe(2);
  });

  it("without onError, callbacks and listeners that throw change nothing else: the others run and the link reconnects", async () => {
    const link = await pg.link(quick);
    const ran: string[] = [];
    const failing = () => {
      throw new Error("failed");
    };
    expect(await link.tryLock("agentsvc:test:quiet", failing)).toBe(true);
    link.onLost(failing);
    link.onLost(async () => failing());
    link.onLost((l) => void ran.push(`lost ${l.names.join()}`));
    link.onReconnect(failing);
    link.onReconnect((generation) => void ran.push(`reconnected ${generation}`));
    await terminate(pg.mon, link.backendPid!);
    await waitFor("the reconnect's listeners", () => ran.length === 2, 5_000);
    expect(ran).toEqual(["lost agentsvc:test:quiet", "reconnected 2"]);
  });

  it("after a reconnect, onReconnect listeners run in order, one that throws is reported, an unsubscribed one does not run", async () => {
    const errors: [string, string][] = [];
    const link = await pg.link({ ...quick, onError: (e, c) => errors.push([c, e.message]) });
    const ran: string[] = [];
    link.onReconnect(async (generation) => {
      await sleep(20);
      ran.push(`first ${generation}`);
    });
    link.onReconnect(() => {
      throw new Error("reconnect listener failed");
    });
    const off = link.onReconnect(() => void ran.push("unsubscribed"));
    link.onReconnect((generation) => void ran.push(`last ${generation}`));
    off();
    await terminate(pg.mon, link.backendPid!);
    await waitFor("reconnected", () => ran.length === 2, 5_000);
    expect(ran).toEqual(["first 2", "last 2"]);
    expect(errors.filter(([c]) => c !== "connection dropped")).toEqual([
      ["onReconnect", "reconnect listener failed"],
    ]);
    expect(link.generation).toBe(2);
  });

  it("notifications reach listeners with channel, payload and sender; an unsubscribed listener and a throwing one do not stop the others", async () => {
    const errors: [string, string][] = [];
    const link = await pg.link({ ...quick, onError: (e, c) => errors.push([c, e.message]) });
    await link.query("LISTEN edge_chan");
    const got: LinkNotification[] = [];
    const gone: LinkNotification[] = [];
    link.onNotification(() => {
      throw new Error("notification listener failed");
    });
    link.onNotification(async () => {
      throw new Error("async notification listener failed");
    });
    const off = link.onNotification((n) => void gone.push(n));
    link.onNotification((n) => void got.push(n));
    off();
    const sender = (await pg.mon.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    await pg.mon.query("NOTIFY edge_chan");
    await pg.mon.query("NOTIFY edge_chan, 'hello'");
    await waitFor("two notifications", () => got.length === 2, 5_000);
    expect(got).toEqual([
      { channel: "edge_chan", payload: "", senderPid: sender },
      { channel: "edge_chan", payload: "hello", senderPid: sender },
    ]);
    expect(gone).toEqual([]);
    await waitFor("four reports", () => errors.length === 4, 5_000);
    expect(errors.map(([c]) => c)).toEqual(["notification", "notification", "notification", "notification"]);
  });

  it("close() runs no lost callback and reports nothing; the server frees the locks", async () => {
    const errors: string[] = [];
    const link = await pg.link({ ...quick, onError: (_e, c) => errors.push(c) });
    const calls: string[] = [];
    expect(await link.tryLock("agentsvc:test:closing", () => calls.push("lost"))).toBe(true);
    const lost: LinkLost[] = [];
    link.onLost((l) => lost.push(l));
    await link.close();
    expect(link.heldLocks()).toEqual([]);
    expect(link.isHeld("agentsvc:test:closing")).toBe(false);
    await sleep(300);
    expect(calls).toEqual([]);
    expect(lost).toEqual([]);
    expect(errors).toEqual([]);
    expect(link.connected).toBe(false);
  });

  it("a connect() that close() overtook is refused and leaves no session open", async () => {
    const link = new InstanceLink({ connectionString: pg.url, ...quick, applicationName: "edge-overtaken" });
    const connecting = link.connect();
    await link.close();
    await expect(connecting).rejects.toThrow("InstanceLink: closed while connecting");
    expect(link.connected).toBe(false);
    expect(link.generation).toBe(0);
    await waitFor("no session left", async () => (await sessionsNamed("edge-overtaken")) === 0, 5_000);
  });

  it("asked for TLS, it does not fall back to plain text on a server without it", async () => {
    const link = new InstanceLink({ connectionString: pg.url, ...quick, ssl: true });
    await expect(link.connect()).rejects.toThrow(/SSL/);
    expect(link.connected).toBe(false);
    await link.close();
  });

  it("a lock or unlock statement the server refuses rejects while the link stays up; the name is not counted as held", async () => {
    const rights = await limitedRole(pg.mon, pg.url, "link_limited");
    const link = await pg.link({ ...quick, connectionString: rights.url });
    try {
      expect(await link.tryLock("agentsvc:test:refused-unlock")).toBe(true);
      expect(await link.tryLock("agentsvc:test:refused-announced")).toBe(true);
      await rights.revoke();
      await expect(link.tryLock("agentsvc:test:refused")).rejects.toThrow(/permission denied/);
      expect(link.isHeld("agentsvc:test:refused")).toBe(false);
      await expect(link.unlock("agentsvc:test:refused-unlock")).rejects.toThrow(/permission denied/);
      expect(link.isHeld("agentsvc:test:refused-unlock")).toBe(false);
      const notify = { channel: "c", payload: "p" };
      await expect(link.unlockAndNotify("agentsvc:test:refused-announced", notify)).rejects.toThrow(
        /permission denied/,
      );
      expect(link.isHeld("agentsvc:test:refused-announced")).toBe(false);
      expect(link.connected).toBe(true);
      await rights.grant();
      // Taken again once allowed: the refused take left nothing behind on this link.
      expect(await link.tryLock("agentsvc:test:refused")).toBe(true);
    } finally {
      await rights.grant();
    }
  });
});
