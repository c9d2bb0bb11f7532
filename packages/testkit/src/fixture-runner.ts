// What every adapter's fixtures test shares: the documented cases of fixtures/<platform>/, a
// gateway run in a real session with what it delivers and logs recorded, and the outcomes every
// platform has (delivered, ignored, decided). Each adapter keeps only how its fake signs and sends
// a payload and its platform-only outcomes (a 401, a warned status, a refused press).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Gateway, Inbound } from "@agentsvc/session-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CapturedLogs, captureLogs } from "./logs.js";
import { type SessionRig, startSessionRig } from "./session-rig.js";
import { eventually, within } from "./wait.js";

/** The outcomes every platform's fixtures use. */
export type CommonOutcome =
  | { outcome: "delivered"; text: string; author: string; thread: string }
  | { outcome: "ignored"; reason: string }
  | { outcome: "decided"; decision: "approve" | "reject" };

/** Every `<platform>/*.json` case under testkit's fixtures/, with its file name, by file name. */
export function loadFixtures<F>(platform: string): (F & { file: string })[] {
  const dir = join(import.meta.dirname, "../fixtures", platform);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => ({ file, ...(JSON.parse(readFileSync(join(dir, file), "utf8")) as F) }));
}

export interface FixtureRun {
  rig: SessionRig;
  logs: CapturedLogs;
  /** What the gateway delivered to the session, in order. */
  seen: Inbound[];
  /** Every decision the gateway asked the session to apply, with whether it was applied. */
  decided: { requestId: string; decision: string; by: string; ok: boolean }[];
  /** The `reason` of every log line so far. */
  reasons(): string[];
}

/** Starts `gateway` in a session rig, recording its deliveries and logs. Stop with `run.rig.stop()`. */
export async function runFixtureGateway(gateway: Gateway): Promise<FixtureRun> {
  const logs = captureLogs();
  const seen: Inbound[] = [];
  const decided: FixtureRun["decided"] = [];
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
  const rig = await startSessionRig(gateway, { logger: logs.logger });
  return { rig, logs, seen, decided, reasons: () => logs.lines().map((l) => String(l.reason ?? "")) };
}

/** Nothing was delivered once the session is idle. */
export async function expectNothingDelivered(run: FixtureRun): Promise<void> {
  await run.rig.session.idle(2_000);
  expect(run.seen).toEqual([]);
}

/**
 * Asserts a delivered, ignored or decided outcome (`pending`: the request the fixture opened
 * first; a delivery leaves it open). Returns false for any other outcome, which the adapter checks.
 */
export async function expectCommonOutcome(
  run: FixtureRun,
  e: { outcome: string },
  pending?: string,
): Promise<boolean> {
  const outcome = e as CommonOutcome;
  if (outcome.outcome === "delivered") {
    await eventually(() => run.seen.length > 0, "the delivery");
    expect(run.seen).toHaveLength(1);
    expect(run.seen[0]).toMatchObject({
      text: outcome.text,
      author: { id: outcome.author },
      thread: outcome.thread,
    });
    if (pending) expect((await run.rig.session.interaction(pending))?.status).toBe("open");
    return true;
  }
  if (outcome.outcome === "ignored") {
    // A connection adapter logs its reason after the platform's event arrives, not before a response
    // returns: wait for it (bounded), then check nothing was delivered.
    await eventually(
      () => run.reasons().some((r) => r.includes(outcome.reason)),
      "the reason logged",
      5_000,
    ).catch(() => {});
    await expectNothingDelivered(run);
    const reasons = run.reasons();
    expect(
      reasons.some((r) => r.includes(outcome.reason)),
      `reasons logged: ${reasons.join(" | ")}`,
    ).toBe(true);
    return true;
  }
  if (outcome.outcome === "decided") {
    expect(pending, "a decided fixture opens a request first (pendingRequestBy)").toBeDefined();
    await eventually(
      async () => (await run.rig.session.interaction(pending as string))?.status === "decided",
      "decided",
    );
    if (outcome.decision === "approve")
      await eventually(() => run.rig.executed.length === 1, "the approved tool");
    return true;
  }
  return false;
}

/** What a connection adapter's fixture table starts before each case. */
export interface ConnectionFixtureStart<Fake, G extends Gateway = Gateway> {
  fake: Fake & { close(): Promise<void> };
  gateway: G;
  /** Settles once the gateway is connected to the fake (its first sync, its WebSocket). */
  connected(): Promise<unknown>;
  /** What `connected` waits for, for the timeout's message. */
  connection: string;
}

/**
 * The table of a connection adapter's documented payloads (`fixtures/<platform>/`): a test that
 * there are at least `minimum` and that each cites its `source`, then one test per fixture. Before
 * each, `start` makes a fake and a gateway on it, the gateway runs in a session rig and is given 3 s
 * to connect; after each, both stop. `each` sends the payload and asserts its outcome.
 */
export function connectionFixtureTable<
  F extends { source: string },
  Fake,
  G extends Gateway = Gateway,
>(spec: {
  platform: string;
  minimum: number;
  /** The test's name for what every `source` must be. */
  cites: string;
  source: RegExp;
  start: () => Promise<ConnectionFixtureStart<Fake, G>>;
  each: (
    fixture: F & { file: string },
    started: { fake: Fake; gateway: G; run: FixtureRun },
  ) => Promise<void>;
}): void {
  const fixtures = loadFixtures<F>(spec.platform);
  let started: ConnectionFixtureStart<Fake, G> | undefined;
  let run: FixtureRun | undefined;

  beforeEach(async () => {
    started = await spec.start();
    run = await runFixtureGateway(started.gateway);
    await within(started.connected(), 3_000, started.connection);
  });
  afterEach(async () => {
    await run?.rig.stop();
    await started?.fake.close();
    run = undefined;
    started = undefined;
  });

  describe(`${spec.platform} fixtures`, () => {
    it(spec.cites, () => {
      expect(fixtures.length).toBeGreaterThanOrEqual(spec.minimum);
      for (const f of fixtures) expect(f.source, f.file).toMatch(spec.source);
    });

    it.each(fixtures.map((f) => [f.file, f] as const))("%s", async (_file, f) => {
      if (!started || !run) throw new Error("the fixture's gateway did not start");
      await spec.each(f, { fake: started.fake, gateway: started.gateway, run });
    });
  });
}
