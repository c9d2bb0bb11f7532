import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import {
  Bus,
  type BusDelivery,
  type BusMessage,
  BusPayloadTooLargeError,
  busPayload,
  InstanceLink,
  LinkDownError,
} from "../src/index.js";
import { queriesOf, terminate, usePostgres, waitFor } from "./helpers.js";

interface Got {
  message: BusMessage;
  delivery: BusDelivery;
}

describe.skipIf(postgresMissing)("control bus over LISTEN/NOTIFY between three links", () => {
  const pg = usePostgres();

  const instance = async () => {
    const link = await pg.link({ reconnectMinMs: 50, reconnectMaxMs: 500 });
    const bus = new Bus(link);
    await bus.start();
    const got: Got[] = [];
    bus.subscribe("cancel", (message, delivery) => {
      got.push({ message, delivery });
    });
    return { link, bus, got };
  };

  it("a published message reaches every subscriber exactly once, the publisher's own included", async () => {
    const p = await instance();
    const s1 = await instance();
    const s2 = await instance();
    const steer: BusMessage[] = [];
    s1.bus.subscribe("steer", (m) => {
      steer.push(m);
    });
    const all: BusMessage[] = [];
    s2.bus.subscribe("*", (m) => {
      all.push(m);
    });

    await p.bus.publish({ kind: "cancel", target: "run:1", by: "alice" });
    // A mark from the same sender: a second delivery of run:1 would arrive before it.
    const mark = { kind: "cancel", target: "mark" };
    await p.bus.publish(mark);
    await waitFor(
      "the mark each",
      () => [p, s1, s2].every((i) => i.got.at(-1)?.message.target === "mark"),
      5_000,
    );
    for (const i of [p, s1, s2]) {
      expect(i.got.map((g) => g.message)).toEqual([{ kind: "cancel", target: "run:1", by: "alice" }, mark]);
      expect(i.got[0]!.delivery.senderPid).toBe(p.link.backendPid);
    }
    expect(p.got[0]!.delivery.self).toBe(true);
    expect(s1.got[0]!.delivery.self).toBe(false);
    expect(steer).toEqual([]);
    expect(all).toEqual([{ kind: "cancel", target: "run:1", by: "alice" }, mark]);

    // In order, one each.
    for (let n = 0; n < 20; n++) await s2.bus.publish({ kind: "cancel", target: `run:${n + 2}` });
    // A last message from the same sender: a repeat of any earlier one would arrive before it.
    await s2.bus.publish({ kind: "cancel", target: "end" });
    await waitFor(
      "the end each",
      () => [p, s1, s2].every((i) => i.got.at(-1)?.message.target === "end"),
      5_000,
    );
    for (const i of [p, s1, s2]) {
      expect(i.got.map((g) => g.message.target)).toEqual([
        "run:1",
        "mark",
        ...Array.from({ length: 20 }, (_, n) => `run:${n + 2}`),
        "end",
      ]);
    }
  });

  it("a burst of messages shares a few statements; each arrives once, in the order published, a repeat of the same message included", async () => {
    const p = await instance();
    const s1 = await instance();
    const targets = [...Array.from({ length: 30 }, (_, n) => `b${n}`), "b5", "last"];
    const sent = await queriesOf(async () => {
      await Promise.all(targets.map((target) => p.bus.publish({ kind: "cancel", target })));
    });
    // One statement alone, or with the repeat, two (PostgreSQL folds identical payloads of one transaction).
    expect(sent.filter((q) => q.text.includes("pg_notify")).length).toBeLessThanOrEqual(3);
    await waitFor(
      "the last each",
      () => [p, s1].every((i) => i.got.at(-1)?.message.target === "last"),
      5_000,
    );
    for (const i of [p, s1]) expect(i.got.map((g) => g.message.target)).toEqual(targets);
  });

  it("rejects a payload of 8000 bytes or more before sending; 7999 bytes is delivered", async () => {
    const p = await instance();
    const base = JSON.stringify({ kind: "cancel", target: "t", pad: "" }).length;
    const sized = (bytes: number): BusMessage => ({
      kind: "cancel",
      target: "t",
      pad: "x".repeat(bytes - base),
    });
    await expect(p.bus.publish(sized(8000))).rejects.toThrow(BusPayloadTooLargeError);
    await expect(p.bus.publish(sized(8000))).rejects.toThrow(/8000 bytes of JSON.*under 8000 bytes.*row/);
    // Multi-byte characters count as bytes, not characters.
    await expect(p.bus.publish({ kind: "cancel", target: "é".repeat(4000) })).rejects.toThrow(
      BusPayloadTooLargeError,
    );
    await p.bus.publish(sized(7999));
    await waitFor("the 7999-byte message", () => p.got.length === 1, 5_000);
    expect(JSON.stringify(p.got[0]!.message)).toHaveLength(7999);
  });

  it("a subscriber whose connection is terminated reconnects, re-LISTENs, runs onReconnect and gets later messages", async () => {
    const p = await instance();
    const s = await instance();
    const reconnects: number[] = [];
    s.bus.onReconnect(() => {
      reconnects.push(s.link.generation);
    });
    await p.bus.publish({ kind: "cancel", target: "before" });
    await waitFor("before", () => s.got.length === 1, 5_000);

    await terminate(pg.mon, s.link.backendPid!);
    await waitFor("onReconnect", () => reconnects.length === 1, 5_000);
    expect(reconnects).toEqual([2]);

    await p.bus.publish({ kind: "cancel", target: "after" });
    await waitFor("after", () => s.got.length === 2, 5_000);
    // A last message: a repeat of "before" or "after" (a re-LISTEN heard twice) would arrive before it.
    await p.bus.publish({ kind: "cancel", target: "end" });
    await waitFor("the end", () => [p, s].every((i) => i.got.at(-1)?.message.target === "end"), 5_000);
    expect(s.got.map((g) => g.message.target)).toEqual(["before", "after", "end"]);
    expect(p.got.map((g) => g.message.target)).toEqual(["before", "after", "end"]);
  });

  it("a notification sent in a transaction goes out on commit only (busPayload on the caller's own connection)", async () => {
    const s = await instance();
    const send = async (target: string, end: "COMMIT" | "ROLLBACK") => {
      await pg.mon.query("BEGIN");
      await pg.mon.query("SELECT pg_notify($1, $2)", [s.bus.channel, busPayload({ kind: "cancel", target })]);
      await pg.mon.query(end);
    };
    await send("rolled back", "ROLLBACK");
    await send("committed", "COMMIT");
    await send("end", "COMMIT");
    // PostgreSQL delivers notifications in commit order: a rolled-back one would come before these.
    await waitFor("the end", () => s.got.at(-1)?.message.target === "end", 5_000);
    expect(s.got.map((g) => [g.message.target, g.delivery.self])).toEqual([
      ["committed", false],
      ["end", false],
    ]);
    expect(() => busPayload({ kind: "", target: "x" })).toThrow(/kind must be a non-empty string/);
  });

  it("publishing while the link is down fails with LinkDownError (the caller's row is the record)", async () => {
    const link = new InstanceLink({ connectionString: pg.url });
    const bus = new Bus(link);
    await expect(bus.publish({ kind: "cancel", target: "x" })).rejects.toThrow(LinkDownError);
    await expect(bus.start()).rejects.toThrow(LinkDownError);
    expect(() => new Bus(link, { channel: "Bad-Name" })).toThrow(/lower-case SQL identifier/);
  });
});
