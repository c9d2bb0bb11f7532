// A revoked or expired client secret (#24 item 9): the token endpoint's 401 `invalid_client` stops the
// gateway with one error naming the password's variable; its status says why; the reply waits.
import { captureLogs, eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, expect, it } from "vitest";
import { alice, type TeamsWorld, teamsWorld } from "./harness.js";

let world: TeamsWorld;
let rig: SessionRig;
afterEach(async () => {
  await rig?.stop();
  await world?.close();
});

it("a revoked client secret stops the gateway, naming TEAMS_TEST_APP_PASSWORD", async () => {
  world = await teamsWorld();
  const logs = captureLogs();
  rig = await startSessionRig(world.build(), { logger: logs.logger });
  world.fake.revokeSecret();
  expect(
    (await world.fake.deliverMessage({ conversationId: "a:1cred", from: alice, text: "hi" })).status,
  ).toBe(200);
  await eventually(() => rig.session.status().teams?.state === "stopped", "the gateway stopped");
  expect(rig.session.status().teams?.reason).toContain("TEAMS_TEST_APP_PASSWORD");
  expect(world.fake.sent).toEqual([]);
  const errors = logs.lines().filter((l) => l.level >= 50 && String(l.msg).includes("credentials rejected"));
  expect(errors).toHaveLength(1);
});
