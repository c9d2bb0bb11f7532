// A subscriber's `wants` (#45.3): with three instances most thread announcements each one hears
// are for a thread another instance holds, and each was JSON-parsed only to be dropped. The bus
// reads a payload's kind and target from its opening and parses only what some subscriber wants.
// Over a real PostgreSQL; the parses counted with a spy on JSON.parse (this process's).
import { postgresMissing } from "@agentsvc/pg-test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openingOf } from "../src/bus.js";
import { Bus, busPayload } from "../src/index.js";
import { usePostgres, waitFor } from "./helpers.js";

describe("a payload's opening (no server)", () => {
  it("is read when kind and target lead, as busPayload writes any message", () => {
    expect(openingOf(busPayload({ target: "t:1", x: 1, kind: "thread" }))).toEqual({
      kind: "thread",
      target: "t:1",
    });
    expect(openingOf('{"kind":"run","target":""}')).toEqual({ kind: "run", target: "" });
    expect(openingOf('{"kind":"run","target":"é x"}')).toEqual({ kind: "run", target: "é x" });
  });

  it("is not read (the payload is parsed) for any other shape or an escape in kind or target", () => {
    for (const payload of [
      '{"target":"t","kind":"run"}',
      '{ "kind":"run","target":"t"}',
      '{"kind":"run","x":1,"target":"t"}',
      '{"kind":"run","target":"a\\"b"}',
      '{"kind":"r\\u0075n","target":"t"}',
      '{"kind":"run","target":"t"',
      '{"kind":"run","target":"t" }',
      '{"kind":"run","target":',
      '{"kind":"run',
      "not json",
    ])
      expect(openingOf(payload), payload).toBeUndefined();
  });
});

describe.skipIf(postgresMissing)("a subscriber's wants over PostgreSQL", () => {
  const pg = usePostgres();
  afterEach(() => vi.restoreAllMocks());

  const started = async () => {
    const errors: string[] = [];
    const link = await pg.link({ healthCheckMs: 0 });
    const bus = new Bus(link, { onError: (e, c) => errors.push(`${c}: ${e.message}`) });
    await bus.start();
    return { bus, errors };
  };

  /** The payloads JSON.parse is handed from now on that mention `marker`. */
  const parsesOf = (marker: string) => {
    const seen: string[] = [];
    const parse = JSON.parse;
    vi.spyOn(JSON, "parse").mockImplementation((text: string, reviver?: Parameters<typeof parse>[1]) => {
      if (typeof text === "string" && text.includes(marker)) seen.push(text);
      return parse(text, reviver);
    });
    return seen;
  };

  it("a message no subscriber of its kind wants reaches none and is never parsed; one some want reaches those", async () => {
    const a = await started();
    const b = await started();
    const c = await started();
    const mine: string[] = [];
    const anyone: string[] = [];
    const all: string[] = [];
    a.bus.subscribe("thread", (m) => void mine.push(m.target), { wants: (t) => t.startsWith("mine:") });
    b.bus.subscribe("thread", (m) => void anyone.push(m.target));
    c.bus.subscribe("*", (m) => void all.push(`${m.kind} ${m.target}`), { wants: (t) => t !== "skip" });
    const parsed = parsesOf("wants-test");
    await b.bus.publish({ kind: "thread", target: "other:1", note: "wants-test" });
    await b.bus.publish({ kind: "thread", target: "mine:1", note: "wants-test" });
    // Kind and target out of order in the caller's object: written leading all the same.
    await b.bus.publish({ note: "wants-test", target: "other:2", kind: "thread" });
    await b.bus.publish({ kind: "cancel", target: "skip", note: "wants-test" });
    await b.bus.publish({ kind: "thread", target: "mine:end", note: "wants-test" });
    await waitFor(
      "the last one",
      () => [mine, anyone, all].every((got) => got.some((t) => t.endsWith("mine:end"))),
      5_000,
    );
    expect(mine).toEqual(["mine:1", "mine:end"]);
    expect(anyone).toEqual(["other:1", "mine:1", "other:2", "mine:end"]);
    expect(all).toEqual(["thread other:1", "thread mine:1", "thread other:2", "thread mine:end"]);
    // Parsed once by each instance that wanted it: a only its own threads, the cancel by nobody.
    const times = (target: string) => parsed.filter((p) => p.includes(`"target":"${target}"`)).length;
    expect(["other:1", "mine:1", "other:2", "skip", "mine:end"].map(times)).toEqual([2, 3, 2, 0, 3]);
    expect([a.errors, b.errors, c.errors]).toEqual([[], [], []]);
  });

  it("a payload whose opening cannot be read is parsed and still handed only to subscribers that want its target", async () => {
    const { bus } = await started();
    const got: string[] = [];
    bus.subscribe("thread", (m) => void got.push(m.target), { wants: (t) => t !== 'not "this"' });
    for (const payload of [
      '{"target":"not \\"this\\"","kind":"thread"}',
      '{"kind":"thread","target":"not \\"this\\""}',
      '{"target":"t \\"1\\"","kind":"thread"}',
      '{"kind":"thread","target":"end"}',
    ])
      await pg.mon.query("SELECT pg_notify($1, $2)", [bus.channel, payload]);
    await waitFor("the last one", () => got.includes("end"), 5_000);
    expect(got).toEqual(['t "1"', "end"]);
  });
});
