// Every documented payload in packages/testkit/fixtures/whatsapp/ through the real webhook route over
// HTTP, signed as Meta signs it, with its outcome asserted: delivered (text, author, thread),
// ignored (the reason logged), decided, refused (a press the session turned down, with its code)
// or warned (a failed status logged with its error code). A new fixture is a new row. Message
// timestamps are moved to now (less `timestampAgeSeconds`) before signing; `pendingRequestBy`
// first opens an approval request for that user, whose ids replace REQUEST_ID and
// REQUEST_MESSAGE_ID in the payload.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Inbound } from "@agentsvc/session-core";
import { captureLogs, eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { type WhatsappWorld, whatsappWorld } from "./harness.js";

type Json = Record<string, unknown>;
interface Fixture {
  source: string;
  case: string;
  payload: Json;
  timestampAgeSeconds?: number;
  pendingRequestBy?: string;
  expect:
    | { outcome: "delivered"; text: string; author: string; thread: string }
    | { outcome: "ignored"; reason: string }
    | { outcome: "decided"; decision: "approve" | "reject"; by: string }
    | { outcome: "refused"; code: string }
    | { outcome: "warned"; code: number };
}

const dir = join(import.meta.dirname, "../../testkit/fixtures/whatsapp");
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => ({ file: f, ...(JSON.parse(readFileSync(join(dir, f), "utf8")) as Fixture) }));

/** Message timestamps set to now less `age` seconds, and the placeholders filled in. */
function prepare(payload: Json, age: number, ids: Record<string, string>): string {
  const copy = structuredClone(payload);
  const now = String(Math.floor(Date.now() / 1000) - age);
  for (const entry of copy.entry as Json[])
    for (const change of entry.changes as Json[])
      for (const message of ((change.value as Json).messages as Json[] | undefined) ?? [])
        message.timestamp = now;
  let text = JSON.stringify(copy);
  for (const [placeholder, value] of Object.entries(ids)) text = text.replaceAll(placeholder, value);
  return text;
}

let world: WhatsappWorld;
let rig: SessionRig;
afterEach(async () => {
  await rig?.stop();
  await world?.close();
});

describe("whatsapp fixtures", () => {
  it("has the minimum set of cases, each citing Meta's documentation", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(20);
    for (const f of fixtures) expect(f.source, f.file).toMatch(/^https:\/\/developers\.facebook\.com\//);
  });

  it.each(fixtures)("$file: $case", async (f) => {
    world = await whatsappWorld();
    const logs = captureLogs();
    const gateway = world.build();
    const seen: Inbound[] = [];
    const start = gateway.start.bind(gateway);
    gateway.start = (context) =>
      start({
        ...context,
        deliver: async (inbound) => {
          seen.push(inbound);
          return context.deliver(inbound);
        },
      });
    rig = await startSessionRig(gateway, { logger: logs.logger });
    const ids: Record<string, string> = {};
    let pending: string | undefined;
    if (f.pendingRequestBy) {
      await world.fake.deliverText({
        from: f.pendingRequestBy,
        text: "please use delete_file on fixture.log",
      });
      await eventually(() => world.fake.sent.some((s) => s.type === "interactive"), "the approval request");
      pending = rig.session.snapshot("whatsapp", f.pendingRequestBy).pendingRequestId;
      expect(pending).toBeDefined();
      ids.REQUEST_MESSAGE_ID = world.fake.sent.find((s) => s.type === "interactive")?.id as string;
      ids.REQUEST_ID = pending as string;
      seen.length = 0;
    }

    const answer = await world.fake.deliver(prepare(f.payload, f.timestampAgeSeconds ?? 0, ids));
    expect(answer.status).toBe(200);
    const e = f.expect;
    if (e.outcome === "delivered") {
      await eventually(() => seen.length > 0, "the delivery");
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ text: e.text, author: { id: e.author }, thread: e.thread });
      return;
    }
    if (e.outcome === "decided") {
      await eventually(
        async () => (await rig.session.interaction(pending as string))?.status === "decided",
        "decided",
      );
      if (e.decision === "approve") await eventually(() => rig.executed.length === 1, "the approved tool");
      return;
    }
    await rig.session.idle(2_000);
    expect(seen).toEqual([]);
    if (e.outcome === "ignored") {
      const reasons = logs.lines().map((l) => String(l.reason ?? ""));
      expect(
        reasons.some((r) => r.includes(e.reason)),
        `reasons logged: ${reasons.join(" | ")}`,
      ).toBe(true);
    } else if (e.outcome === "refused") {
      expect((await rig.session.interaction(pending as string))?.status).toBe("open");
      expect(rig.executed).toEqual([]);
      expect(logs.lines().some((l) => l.msg === "decision not applied" && l.code === e.code)).toBe(true);
    } else {
      const warned = logs.lines().filter((l) => l.level === 40 && l.msg === "reply not delivered");
      expect(warned.map((l) => l.code)).toEqual([e.code]);
    }
  });
});
