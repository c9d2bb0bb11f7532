// Every documented activity in packages/testkit/fixtures/teams/ through the real messaging endpoint
// over HTTP, with a connector token signed by the fake, and its outcome asserted: delivered (text,
// author, thread), ignored (the reason logged), decided, or refused (status and reason). A new
// fixture is a new row. Before sending, the activity's `serviceUrl` becomes the fake connector's
// (the token's `serviceurl` claim must match it, and replies must stay on 127.0.0.1) and its
// `timestamp` becomes now unless the fixture says `keepTimestamps`; `pendingRequestBy` first opens
// an approval request in the conversation, whose id replaces `$pendingRequestId`.
import {
  type CommonOutcome,
  eventually,
  expectCommonOutcome,
  expectNothingDelivered,
  type FixtureRun,
  loadFixtures,
  runFixtureGateway,
} from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { type TeamsWorld, teamsWorld } from "./harness.js";

type Json = Record<string, unknown>;
interface Fixture {
  source: string;
  case: string;
  payload: Json;
  keepTimestamps?: boolean;
  pendingRequestBy?: string;
  /** A decided case also names who decided (`by`); a delivered one the file refs handed over (no media block: refused, not fetched). */
  expect:
    | (CommonOutcome & { by?: string; attachments?: unknown[] })
    | { outcome: "refused"; status: number; reason: string };
}

const fixtures = loadFixtures<Fixture>("teams");

let world: TeamsWorld;
let run: FixtureRun;
afterEach(async () => {
  await run?.rig.stop();
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
    run = await runFixtureGateway(world.build());
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
      pending = run.rig.session.snapshot("teams", conversationId).pendingRequestId;
      expect(pending).toBeDefined();
      run.seen.length = 0;
      Object.assign(
        activity,
        JSON.parse(JSON.stringify(activity).replaceAll("$pendingRequestId", pending ?? "")),
      );
    }

    const answer = await world.fake.deliver(activity);
    const e = f.expect;
    if (e.outcome === "refused") {
      expect(answer.status).toBe(e.status);
      await expectNothingDelivered(run);
      expect(
        run.reasons().some((r) => r.includes(e.reason)),
        `reasons logged: ${run.reasons().join(" | ")}`,
      ).toBe(true);
      if (pending) expect((await run.rig.session.interaction(pending))?.status).toBe("open");
      return;
    }
    expect(answer.status).toBe(200);
    expect(await expectCommonOutcome(run, e, pending), `${f.file}: outcome`).toBe(true);
    if ("attachments" in e) expect(run.seen[0]?.attachments).toEqual(e.attachments);
    if (e.outcome === "ignored" && pending)
      expect((await run.rig.session.interaction(pending))?.status).toBe("open");
    if (e.outcome === "decided")
      expect(run.decided).toEqual([{ requestId: pending, decision: e.decision, by: e.by, ok: true }]);
  });
});
