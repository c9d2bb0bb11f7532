// The REST client's failures, classified by session-core's sendFailure with GitHub's own rule: a
// rejected token is a credentials failure naming its variable; 403 with an exhausted quota waits.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startSessionRig } from "@agentsvc/testkit/session";
import { postComment } from "../src/api.js";
import { GithubGateway } from "../src/index.js";
import { type GithubWorld, githubWorld, SECRETS } from "./harness.js";

describe("the GitHub REST client", () => {
  let world: GithubWorld;
  beforeEach(async () => {
    world = await githubWorld();
  });
  afterEach(() => world.close());

  const thread = { kind: "issue", owner: "octo-org", repo: "hello-world", number: 1 } as const;

  it("a rejected token (401 Bad credentials) is a credentials failure naming the token's variable", async () => {
    const target = { apiBaseUrl: world.fake.url, token: "ghs_revoked", envVar: "GH_TEST_TOKEN" };
    await expect(postComment(target, thread, undefined, "hi")).rejects.toMatchObject({
      name: "GatewaySendError",
      credentials: true,
      permanent: false,
      envVar: "GH_TEST_TOKEN",
      status: 401,
    });
  });

  it("posts with the right token", async () => {
    const target = { apiBaseUrl: world.fake.url, token: SECRETS.GH_TEST_TOKEN, envVar: "GH_TEST_TOKEN" };
    expect(await postComment(target, thread, undefined, "hi")).toMatch(/^\d+$/);
  });
});

describe("configuration", () => {
  it("a start without the token fails, naming its variable", async () => {
    const gateway = new GithubGateway({
      tokenEnvVar: "GH_UNSET_TOKEN",
      webhookSecretEnvVar: "GH_TEST_WEBHOOK_SECRET",
      botNameEnvVar: "GH_TEST_BOT_NAME",
    });
    await expect(startSessionRig(gateway)).rejects.toMatchObject({
      code: "missing_config",
      envVar: "GH_UNSET_TOKEN",
    });
  });
});
