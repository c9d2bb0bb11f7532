// The control bus at its edges, over real links to a real PostgreSQL: which channel names it takes,
// which notifications it hands to which handler (its own channel only, readable messages only,
// each once however often start() ran, none after unsubscribe or stop()), what it reports and with
// which context, and a start() that failed leaving nothing half-started. Written from the
// survivors of `pnpm mutate pg-cluster src/bus.ts` (#44).
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { Bus, type BusMessage, BusPayloadTooLargeError, busPayload, InstanceLink } from "../src/index.js";
import { sleep, terminate, usePostgres, waitFor } from "./helpers.js";

describe("bus channel names and payloads (no server)", () => {
  const link = new InstanceLink({ connectionString: "postgres://127.0.0.1:1/none" });

  it("a channel is a lower-case SQL identifier of at most 63 characters", () => {
    for (const ok of ["agentsvc_control", "_x", "a", "a1_b2", `a${"b".repeat(62)}`])
      expect(new Bus(link, { channel: ok }).channel).toBe(ok);
    expect(new Bus(link).channel).toBe("agentsvc_control");
    for (const bad of ["", "1abc", "ok-name", "ok name", "ok;drop", "Upper", "oK", `a${"b".repeat(63)}`, "é"])
      expect(() => new Bus(link, { channel: bad }), bad).toThrow(
        `Bus: channel must be a lower-case SQL identifier (got ${JSON.stringify(bad)})`,
      );
  });

  it("a message needs a string kind and a string target; its JSON must stay under 8000 bytes", () => {
    expect(() => busPayload({ kind: 1, target: "x" } as unknown as BusMessage)).toThrow(
      "Bus.publish: kind must be a non-empty string",
    );
    expect(() => busPayload({ kind: "", target: "x" })).toThrow(
      "Bus.publish: kind must be a non-empty string",
    );
    expect(() => busPayload({ kind: "cancel", target: 1 } as unknown as BusMessage)).toThrow(
      "Bus.publish: target must be a string",
    );
    expect(busPayload({ kind: "cancel", target: "" })).toBe('{"kind":"cancel","target":""}');
    const error = (() => {
      try {
        busPayload({ kind: "steer", target: "é".repeat(5000) });
      } catch (e) {
        return e as BusPayloadTooLargeError;
      }
    })();
    expect(error).toBeInstanceOf(BusPayloadTooLargeError);
    expect(error?.name).toBe("BusPayloadTooLargeError");
    // 10 000 two-byte characters plus the 28 bytes around them.
    expect(error?.bytes).toBe(10_028);
    expect(error?.message).toBe(
      'Bus.publish: the "steer" message is 10028 bytes of JSON; a NOTIFY payload must be under 8000 bytes. Store the data in a row and send its id instead.',
    );
  });
});

describe.skipIf(postgresMissing)("bus deliveries and reports over PostgreSQL", () => {
  const pg = usePostgres();

  const started = async (channel?: string) => {
    const errors: [string, string][] = [];
    const link = await pg.link({ healthCheckMs: 0, reconnectMinMs: 50, reconnectMaxMs: 500 });
    const bus = new Bus(link, {
      ...(channel ? { channel } : {}),
      onError: (e, c) => errors.push([c, e.message]),
    });
    await bus.start();
    return { link, bus, errors };
  };

  /** Sends a marker from `from` and waits until `to` got it: everything sent before has arrived. */
  const settle = async (from: Bus, to: Bus) => {
    const marker = `marker-${Math.random()}`;
    let seen = false;
    const off = to.subscribe("marker", (m) => {
      if (m.target === marker) seen = true;
    });
    await from.publish({ kind: "marker", target: marker });
    await waitFor("the marker", () => seen, 5_000);
    off();
  };

  it("a bus hears its own channel only, and each message once however often start() ran", async () => {
    const a = await started("chan_a");
    const b = await started("chan_b");
    await a.bus.start();
    const gotA: string[] = [];
    const gotB: string[] = [];
    a.bus.subscribe("cancel", (m) => void gotA.push(m.target));
    b.bus.subscribe("cancel", (m) => void gotB.push(m.target));
    await a.bus.publish({ kind: "cancel", target: "for a" });
    await b.bus.publish({ kind: "cancel", target: "for b" });
    await settle(a.bus, a.bus);
    await settle(b.bus, b.bus);
    expect(gotA).toEqual(["for a"]);
    expect(gotB).toEqual(["for b"]);
  });

  it("an unsubscribed handler hears nothing more; the kind's other handlers and '*' still do", async () => {
    const { bus } = await started();
    const gone: string[] = [];
    const kept: string[] = [];
    const all: string[] = [];
    const off = bus.subscribe("cancel", (m) => void gone.push(m.target));
    bus.subscribe("cancel", (m) => void kept.push(m.target));
    bus.subscribe("*", (m) => void all.push(`${m.kind}:${m.target}`));
    await bus.publish({ kind: "cancel", target: "1" });
    await settle(bus, bus);
    off();
    await bus.publish({ kind: "cancel", target: "2" });
    await settle(bus, bus);
    expect(gone).toEqual(["1"]);
    expect(kept).toEqual(["1", "2"]);
    expect(all.filter((m) => m.startsWith("cancel:"))).toEqual(["cancel:1", "cancel:2"]);
  });

  it("unreadable notifications on the channel are reported with the payload and handed to no handler", async () => {
    const { bus, errors } = await started();
    const got: unknown[] = [];
    bus.subscribe("*", (m) => void got.push(m));
    const bad = ["not json", "[]", "null", '"text"', '{"kind":1,"target":"t"}', '{"kind":"cancel"}'];
    for (const payload of bad) await pg.mon.query("SELECT pg_notify($1, $2)", [bus.channel, payload]);
    await pg.mon.query("SELECT pg_notify($1, $2)", [
      bus.channel,
      `{"kind":"cancel","target":"${"x".repeat(300)}"`,
    ]);
    await pg.mon.query("SELECT pg_notify($1, $2)", [bus.channel, '{"kind":"cancel","target":"ok"}']);
    await waitFor("the readable one", () => got.length === 1, 5_000);
    expect(got).toEqual([{ kind: "cancel", target: "ok" }]);
    expect(errors.map(([context]) => context)).toEqual([
      ...bad.map((p) => `bus: unreadable payload on agentsvc_control: ${p}`),
      `bus: unreadable payload on agentsvc_control: {"kind":"cancel","target":"${"x".repeat(200 - 27)}`,
    ]);
    expect(errors.slice(1, bad.length).map(([, message]) => message)).toEqual(
      Array(bad.length - 1).fill("not an object with string kind and target"),
    );
  });

  it("a handler that throws or rejects is reported with its kind; the other handlers still get the message", async () => {
    const { bus, errors } = await started();
    const got: string[] = [];
    bus.subscribe("steer", () => {
      throw new Error("sync failure");
    });
    bus.subscribe("steer", async () => {
      throw "async failure";
    });
    bus.subscribe("steer", (m) => void got.push(m.target));
    await bus.publish({ kind: "steer", target: "run:1" });
    await waitFor("delivered", () => got.length === 1, 5_000);
    await waitFor("both reported", () => errors.length === 2, 5_000);
    expect(errors).toEqual([
      ['bus: handler for "steer"', "sync failure"],
      ['bus: handler for "steer"', "async failure"],
    ]);
  });

  it("after a reconnect every onReconnect handler runs, one that throws is reported, and an unsubscribed one does not run", async () => {
    const { link, bus, errors } = await started();
    const ran: string[] = [];
    bus.onReconnect(() => {
      throw new Error("re-read failed");
    });
    const off = bus.onReconnect(() => void ran.push("unsubscribed"));
    bus.onReconnect(async () => void ran.push("kept"));
    off();
    await terminate(pg.mon, link.backendPid!);
    await waitFor("onReconnect", () => ran.length === 1, 5_000);
    expect(ran).toEqual(["kept"]);
    expect(errors).toEqual([["bus: onReconnect", "re-read failed"]]);
  });

  it("after stop() the session no longer listens and no handler runs; the link stays usable", async () => {
    const { link, bus } = await started();
    const other = await started();
    const got: string[] = [];
    bus.subscribe("cancel", (m) => void got.push(m.target));
    expect(await link.query("SELECT pg_listening_channels() AS c")).toEqual([{ c: "agentsvc_control" }]);
    await bus.stop();
    expect(await link.query("SELECT pg_listening_channels() AS c")).toEqual([]);
    await other.bus.publish({ kind: "cancel", target: "after stop" });
    await settle(other.bus, other.bus);
    await sleep(100);
    expect(got).toEqual([]);
    // Stopped twice, and started again: it listens once more.
    await bus.stop();
    await bus.start();
    await other.bus.publish({ kind: "cancel", target: "started again" });
    await waitFor("delivered", () => got.length === 1, 5_000);
    expect(got).toEqual(["started again"]);
  });

  it("a start() that failed (link down) leaves nothing behind: once the link is up, start() listens", async () => {
    const link = new InstanceLink({ connectionString: pg.url, healthCheckMs: 0 });
    const bus = new Bus(link);
    const got: string[] = [];
    bus.subscribe("cancel", (m) => void got.push(m.target));
    try {
      await expect(bus.start()).rejects.toThrow(/not connected/);
      await link.connect();
      await bus.start();
      await bus.publish({ kind: "cancel", target: "heard" });
      // A second message: a LISTEN left over from the failed start would have doubled "heard" before it.
      await bus.publish({ kind: "cancel", target: "end" });
      await waitFor("delivered", () => got.at(-1) === "end", 5_000);
      expect(got).toEqual(["heard", "end"]);
    } finally {
      await bus.stop();
      await link.close();
    }
  });

  it("without onError, a handler that throws is dropped quietly and the handlers after it still get the message", async () => {
    const linkErrors: string[] = [];
    const link = await pg.link({ healthCheckMs: 0, onError: (_e, context) => linkErrors.push(context) });
    const bus = new Bus(link);
    await bus.start();
    const got: string[] = [];
    bus.subscribe("cancel", () => {
      throw new Error("handler failed");
    });
    bus.subscribe("cancel", (m) => void got.push(m.target));
    await bus.publish({ kind: "cancel", target: "run:9" });
    await waitFor("delivered", () => got.length === 1, 5_000);
    await settle(bus, bus);
    expect(got).toEqual(["run:9"]);
    expect(linkErrors).toEqual([]);
  });

  it("two buses on one link hear only their own channel; stopping one that never started silences neither", async () => {
    const link = await pg.link({ healthCheckMs: 0 });
    const a = new Bus(link, { channel: "same_link_a" });
    const b = new Bus(link, { channel: "same_link_b" });
    const idle = new Bus(link, { channel: "same_link_a" });
    await a.start();
    await b.start();
    const gotA: string[] = [];
    const gotB: string[] = [];
    a.subscribe("cancel", (m) => void gotA.push(m.target));
    b.subscribe("cancel", (m) => void gotB.push(m.target));
    await idle.stop();
    await a.publish({ kind: "cancel", target: "for a" });
    await b.publish({ kind: "cancel", target: "for b" });
    await settle(a, a);
    await settle(b, b);
    expect(gotA).toEqual(["for a"]);
    expect(gotB).toEqual(["for b"]);
  });
});
