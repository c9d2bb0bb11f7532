// A payload's kind and target are read from its opening only when it opens exactly as busPayload
// writes it, `{"kind":"…","target":"…"`: a payload that only looks like it (another first or second
// key of the same length) is parsed, and reported when unreadable, even when no subscriber of the
// kind it seems to have wants its target. Found by `pnpm mutate pg-cluster src/bus.ts` (#45): the
// shapes tested before were rejected by a later check as well, so dropping either check failed nothing.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { openingOf } from "../src/bus.js";
import { Bus } from "../src/index.js";
import { usePostgres, waitFor } from "./helpers.js";

/** Payloads that read like an opening from the tenth character on, with another key before. */
const LOOKALIKES = ['{"kinx":"thread","target":"t:1"}', '{"kind":"thread","targex":"t:1"}'];

describe("a payload's opening, from its first character (no server)", () => {
  it("is not read when the first key is not kind or the second not target, though the rest reads like one", () => {
    for (const payload of LOOKALIKES) expect(openingOf(payload), payload).toBeUndefined();
    expect(openingOf('{"kind":"thread","target":"t:1"}')).toEqual({ kind: "thread", target: "t:1" });
  });
});

describe.skipIf(postgresMissing)("a look-alike opening over PostgreSQL", () => {
  const pg = usePostgres();

  it("is parsed and reported unreadable, not dropped as unwanted by the kind and target it seems to have", async () => {
    const errors: string[] = [];
    const link = await pg.link({ healthCheckMs: 0 });
    const bus = new Bus(link, { onError: (_e, context) => errors.push(context) });
    await bus.start();
    const got: string[] = [];
    // Wants no thread "t:1": a payload read as about it would be dropped unparsed and unreported.
    bus.subscribe("thread", (m) => void got.push(m.target), { wants: (t) => t !== "t:1" });
    for (const payload of LOOKALIKES) await pg.mon.query("SELECT pg_notify($1, $2)", [bus.channel, payload]);
    await pg.mon.query("SELECT pg_notify($1, $2)", [bus.channel, '{"kind":"thread","target":"end"}']);
    await waitFor("the last one", () => got.includes("end"), 5_000);
    expect(got).toEqual(["end"]);
    expect(errors).toEqual(LOOKALIKES.map((p) => `bus: unreadable payload on agentsvc_control: ${p}`));
  });
});
