// A channel that is an SQL reserved word (`select`, `user`, `order`, `table`) passes the bus's name
// check, and before the bus quoted it its LISTEN was a syntax error at start. Over real links to a
// real PostgreSQL: the quoted LISTEN, the re-LISTEN after a reconnect and the UNLISTEN on stop all
// name the channel pg_notify sends to by its text, as they do for a name that is no keyword.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { Bus, busPayload, InstanceLink } from "../src/index.js";
import { monitor, terminate, usePostgres, waitFor } from "./helpers.js";

describe.skipIf(postgresMissing)("a bus on a channel that is a reserved word", () => {
  const pg = usePostgres();

  const started = async (channel: string) => {
    const link = await pg.link({ healthCheckMs: 0, reconnectMinMs: 50, reconnectMaxMs: 500 });
    const bus = new Bus(link, { channel });
    await bus.start();
    return { link, bus };
  };

  it("starts on select, user, order and table, and a message published on one reaches the other link", async () => {
    for (const channel of ["select", "user", "order", "table"]) {
      const a = await started(channel);
      const b = await started(channel);
      const got: string[] = [];
      b.bus.subscribe("cancel", (m) => void got.push(m.target));
      await a.bus.publish({ kind: "cancel", target: `run on ${channel}` });
      await waitFor(`the message on ${channel}`, () => got.length === 1, 5_000);
      expect(got).toEqual([`run on ${channel}`]);
      expect(await b.link.query("SELECT pg_listening_channels() AS c")).toEqual([{ c: channel }]);
    }
  });

  it("pg_notify on the caller's own connection with bus.channel reaches the quoted LISTEN", async () => {
    const { bus } = await started("select");
    const got: string[] = [];
    bus.subscribe("steer", (m) => void got.push(m.target));
    const own = await monitor(pg.url);
    try {
      await own.query("SELECT pg_notify($1, $2)", [bus.channel, busPayload({ kind: "steer", target: "t1" })]);
    } finally {
      await own.end();
    }
    await waitFor("the caller's notification", () => got.length === 1, 5_000);
    expect(got).toEqual(["t1"]);
  });

  it("after a reconnect the bus listens on select again and gets later messages", async () => {
    const listener = await started("select");
    const publisher = await started("select");
    const got: string[] = [];
    listener.bus.subscribe("cancel", (m) => void got.push(m.target));
    let reconnected = false;
    listener.bus.onReconnect(() => {
      reconnected = true;
    });
    await terminate(pg.mon, listener.link.backendPid!);
    // onReconnect runs once the channel is LISTENed again: an unquoted re-LISTEN failed before it.
    await waitFor("the re-LISTEN", () => reconnected, 10_000);
    await publisher.bus.publish({ kind: "cancel", target: "after reconnect" });
    await waitFor("the message after the reconnect", () => got.length === 1, 5_000);
    expect(got).toEqual(["after reconnect"]);
  });

  it("stop() UNLISTENs select: the session listens on nothing after it", async () => {
    const link = new InstanceLink({ connectionString: pg.url, healthCheckMs: 0 });
    await link.connect();
    try {
      const bus = new Bus(link, { channel: "select" });
      await bus.start();
      expect(await link.query("SELECT pg_listening_channels() AS c")).toEqual([{ c: "select" }]);
      await bus.stop();
      expect(await link.query("SELECT pg_listening_channels() AS c")).toEqual([]);
    } finally {
      await link.close();
    }
  });
});
