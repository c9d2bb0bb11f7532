// A revoked token (#24 item 9): the first REST call answered 401 stops the gateway with one error
// naming the variable to fix; its status says why; the reply stays pending for after the fix.
import { captureLogs, eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, expect, it } from "vitest";
import { alice, type GithubWorld, githubWorld, SECRETS } from "./harness.js";

let world: GithubWorld;
let rig: SessionRig;
afterEach(async () => {
  await rig?.stop();
  await world?.close();
});

it("a revoked token stops the gateway, naming GH_TEST_TOKEN, and nothing is dead-lettered", async () => {
  world = await githubWorld();
  const logs = captureLogs();
  rig = await startSessionRig(world.build(), { logger: logs.logger });
  world.fake.revokeToken();
  await world.fake.commentOnIssue({ number: 8, body: `@${SECRETS.GH_TEST_BOT_NAME} hello`, user: alice });
  await eventually(() => rig.session.status().github?.state === "stopped", "the gateway stopped");
  expect(rig.session.status().github?.reason).toContain("GH_TEST_TOKEN");
  expect(world.fake.posted).toEqual([]);
  const errors = logs.lines().filter((l) => l.level >= 50 && String(l.msg).includes("credentials rejected"));
  expect(errors).toHaveLength(1);
});
