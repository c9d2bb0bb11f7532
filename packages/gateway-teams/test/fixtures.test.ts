// Every documented activity in packages/testkit/fixtures/teams/ through the real messaging endpoint
// over HTTP, with a connector token signed by the fake, and its outcome asserted: delivered (text,
// author, thread), ignored (the reason logged), decided, or refused (status and reason). A new
// fixture is a new row. Before sending, the activity's `serviceUrl` becomes the fake connector's
// (the token's `serviceurl` claim must match it, and replies must stay on 127.0.0.1) and its
// `timestamp` becomes now unless the fixture says `keepTimestamps`; `pendingRequestBy` first opens
// an approval request in the conversation, whose id replaces `$pendingRequestId`.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Inbound } from "@agentsvc/session-core";
import { captureLogs, eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { type TeamsWorld, teamsWorld } from "./harness.js";

type Json = Record<string, unknown>;
interface Fixture {
  source: string;
  case: string;
  payload: Json;
  keepTimestamps?: boolean;
  pendingRequestBy?: string;
  expect:
    | { outcome: "delivered"; text: string; author: string; thread: string }
    | { outcome: "ignored"; reason: string }
    | { outcome: "decided"; decision: "approve" | "reject"; by: string }
    | { outcome: "refused"; status: number; reason: string };
}

const dir = join(import.meta.dirname, "../../testkit/fixtures/teams");
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => ({ file: f, ...(JSON.parse(readFileSync(join(dir, f), "utf8")) as Fixture) }));

let world: TeamsWorld;
let rig: SessionRig;
afterEach(async () => {
  await rig?.stop();
  await world?.close();
});

describe("teams fixtures", () => {
  it("has the minimum set of cases, each citing Microsoft's documentation", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(15);
    for (const f of fixtures)
      expect(f.source, f.file).toMatch(/^https:\/\/(learn\.microsoft\.com|github\.com\/microsoft)\//);
  });

  it.each(fixtures)("$file: $case", async (f) => {
    world = await teamsWorld();
    const logs = captureLogs();
    const gateway = world.build();
    const seen: Inbound[] = [];
    const decided: { requestId: string; decision: string; by: string; ok: boolean }[] = [];
    const start = gateway.start.bind(gateway);
    gateway.start = (context) =>
      start({
        ...context,
        deliver: async (inbound) => {
          seen.push(inbound);
          return context.deliver(inbound);
        },
        decide: async (requestId, input, by) => {
          const result = await context.decide(requestId, input, by);
          decided.push({ requestId, decision: input.decision, by, ok: result.ok });
          return result;
        },
      });
    rig = await startSessionRig(gateway, { logger: logs.logger });
    const activity = structuredClone(f.payload);
    activity.serviceUrl = world.fake.serviceUrl;
    if (!f.keepTimestamps && "timestamp" in activity) activity.timestamp = new Date().toISOString();
    const conversationId = String((activity.conversation as Json).id);
    let pending: string | undefined;
    if (f.pendingRequestBy) {
      const requester = { id: "29:1requester", name: "Requester", aadObjectId: f.pendingRequestBy };
      await world.fake.deliverMessage({
        conversationId,
        from: requester,
        text: "please use delete_file on x",
      });
      await eventually(() => world.fake.sent.some((s) => s.actions.length > 0), "the card");
      pending = rig.session.snapshot("teams", conversationId).pendingRequestId;
      expect(pending).toBeDefined();
      seen.length = 0;
      Object.assign(
        activity,
        JSON.parse(JSON.stringify(activity).replaceAll("$pendingRequestId", pending ?? "")),
      );
    }

    const answer = await world.fake.deliver(activity);
    const e = f.expect;
    if (e.outcome === "refused") {
      expect(answer.status).toBe(e.status);
      await rig.session.idle(2_000);
      expect(seen).toEqual([]);
    } else expect(answer.status).toBe(200);
    if (e.outcome === "delivered") {
      await eventually(() => seen.length > 0, "the delivery");
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ text: e.text, author: { id: e.author }, thread: e.thread });
    } else if (e.outcome === "ignored" || e.outcome === "refused") {
      await rig.session.idle(2_000);
      expect(seen).toEqual([]);
      const reasons = logs.lines().map((l) => String(l.reason ?? ""));
      expect(
        reasons.some((r) => r.includes(e.reason)),
        `reasons logged: ${reasons.join(" | ")}`,
      ).toBe(true);
      if (pending) expect((await rig.session.interaction(pending))?.status).toBe("open");
    } else if (e.outcome === "decided") {
      await eventually(
        async () => (await rig.session.interaction(pending as string))?.status === "decided",
        "decided",
      );
      if (e.decision === "approve") await eventually(() => rig.executed.length === 1, "the approved tool");
      expect(decided).toEqual([{ requestId: pending, decision: e.decision, by: e.by, ok: true }]);
    }
  });
});
