// Every documented payload in packages/testkit/fixtures/github/ through the real webhook route over
// HTTP, signed as GitHub signs it, with its outcome asserted: delivered (text, author, thread),
// ignored (the reason logged), or decided. A new fixture is a new row. Timestamps in a payload are
// moved to now before signing (a fixed date would soon fall outside the dedup window), unless the
// fixture says `keepTimestamps`; `pendingRequestBy` first opens an approval request in the thread.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Inbound } from "@agentsvc/session-core";
import { captureLogs, eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { type GithubWorld, githubWorld } from "./harness.js";

type Json = Record<string, unknown>;
interface Fixture {
  source: string;
  case: string;
  event: string;
  payload: Json;
  keepTimestamps?: boolean;
  pendingRequestBy?: string;
  expect:
    | { outcome: "delivered"; text: string; author: string; thread: string }
    | { outcome: "ignored"; reason: string }
    | { outcome: "decided"; decision: "approve" | "reject"; by: string };
}

const dir = join(import.meta.dirname, "../../testkit/fixtures/github");
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => ({ file: f, ...(JSON.parse(readFileSync(join(dir, f), "utf8")) as Fixture) }));

function refreshTimestamps(payload: Json): Json {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  const copy = structuredClone(payload);
  for (const key of ["comment", "review"]) {
    const o = copy[key] as Json | undefined;
    if (!o) continue;
    for (const field of ["created_at", "updated_at", "submitted_at"]) if (field in o) o[field] = now;
  }
  return copy;
}

let world: GithubWorld;
let rig: SessionRig;
afterEach(async () => {
  await rig?.stop();
  await world?.close();
});

describe("github fixtures", () => {
  it("has the minimum set of cases", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(15);
    for (const f of fixtures) expect(f.source, f.file).toMatch(/^https:\/\/docs\.github\.com\//);
  });

  it.each(fixtures)("$file: $case", async (f) => {
    world = await githubWorld();
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
    const issue = (f.payload.issue as Json | undefined)?.number as number | undefined;
    let requestThread: string | undefined;
    if (f.pendingRequestBy) {
      requestThread = `repo:octo-org/hello-world:issue:${issue}`;
      await world.fake.commentOnIssue({
        number: issue as number,
        body: "@agentsvc-bot please use delete_file on fixture.log",
        user: { login: "requester", id: Number(f.pendingRequestBy), type: "User" },
      });
      await eventually(() => world.fake.posted.some((p) => p.body.startsWith("Approval needed:")), "request");
      seen.length = 0;
    }
    const pending = requestThread
      ? rig.session.snapshot("github", requestThread).pendingRequestId
      : undefined;

    // Written now, after any request it answers was made (GitHub's timestamps have whole seconds).
    const payload = f.keepTimestamps ? f.payload : refreshTimestamps(f.payload);
    const answer = await world.fake.deliver(f.event, payload);
    expect(answer.status).toBe(200);
    const e = f.expect;
    if (e.outcome === "delivered") {
      await eventually(() => seen.length > 0, "the delivery");
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ text: e.text, author: { id: e.author }, thread: e.thread });
      if (pending) expect((await rig.session.interaction(pending))?.status).toBe("open");
    } else if (e.outcome === "ignored") {
      await rig.session.idle(2_000);
      expect(seen).toEqual([]);
      const reasons = logs.lines().map((l) => String(l.reason ?? ""));
      expect(
        reasons.some((r) => r.includes(e.reason)),
        `reasons logged: ${reasons.join(" | ")}`,
      ).toBe(true);
    } else {
      expect(pending).toBeDefined();
      await eventually(
        async () => (await rig.session.interaction(pending as string))?.status === "decided",
        "decided",
      );
      if (e.decision === "approve") await eventually(() => rig.executed.length === 1, "the approved tool");
      // A text decision is the comment, recorded with its author; the session applies it as theirs.
      expect(seen.map((i) => i.author.id)).toEqual([e.by]);
    }
  });
});
