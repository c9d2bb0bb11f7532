// deafAfter (#43 item 11) against the Slack fake: Socket Mode up (pings answered, no disconnect),
// no event for that long -> one warning, a new connection from apps.connections.open, and the next
// message still arrives once.
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { type SlackHarness, slackHarness } from "./harness.js";

let h: SlackHarness;
let rig: ContractRig;

afterEach(async () => {
  await rig?.stop();
  await h?.close?.();
});

describe("slack: deafAfter", () => {
  it("a Socket Mode connection up but silent for deafAfter is replaced with a warning, and messages still arrive", async () => {
    h = await slackHarness({ deafAfter: "1s" });
    rig = new ContractRig(h);
    await rig.start();
    await eventually(() => h.fake.openConnections.length === 1, "the first connection");
    await eventually(() => h.logs.some((l) => /deafAfter/.test(l.msg)), "the deafAfter warning");
    const warning = h.logs.find((l) => /deafAfter/.test(l.msg));
    expect(warning).toMatchObject({ level: 40, deafAfterMs: 1_000 });
    expect(warning?.msg).toMatch(/while Socket Mode is up \(deafAfter\); reconnecting/);
    await eventually(
      () => h.fake.calls.filter((c) => c.method === "apps.connections.open").length >= 2,
      "a new connection asked for",
    );
    await eventually(() => h.fake.connections.length >= 2 && h.fake.openConnections.length === 1, "replaced");
    // The watchdog did not do it: the connection answered its pings all along.
    expect(h.logs.some((l) => /silent past the watchdog/.test(l.msg))).toBe(false);
    const { acked } = h.fake.workspace.userSays({
      channel: "D0001",
      user: h.userId("user-1"),
      text: "still there?",
    });
    await acked;
    await eventually(
      () => h.fake.workspace.botMessages.some((m) => m.channel === "D0001"),
      "the answer on the new connection",
    );
  });
});
