// The connector's JWT: RS256 against the published key set (fetched once), the fixed issuer, the
// app id as audience, 5 minutes of skew, the key endorsed for the channel and the serviceurl claim
// equal to the activity's. Every failure is a bare 401, logged, and dispatches nothing.
import { connectorKey } from "@agentsvc/testkit";
import { captureLogs, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BotToken } from "../src/api.js";
import { alice, SECRETS, type TeamsWorld, teamsWorld } from "./harness.js";

describe("teams inbound authentication over HTTP", () => {
  let world: TeamsWorld;
  let rig: SessionRig;
  let logs: ReturnType<typeof captureLogs>;
  const conversationId = "a:1auth";

  beforeEach(async () => {
    world = await teamsWorld();
    logs = captureLogs();
    rig = await startSessionRig(world.build(), { logger: logs.logger });
  });
  afterEach(async () => {
    await rig.stop();
    await world.close();
  });

  const activity = (text: string) => world.fake.messageActivity({ conversationId, from: alice, text });

  async function expectRefused(answer: { status: number; body: string }, reason: string) {
    expect(answer.status).toBe(401);
    expect(answer.body).toBe("");
    await rig.session.idle(5_000);
    expect(await rig.userMessages(conversationId)).toEqual([]);
    expect(world.fake.sent).toEqual([]);
    expect(logs.lines().find((l) => l.msg === "webhook request refused: not verified")).toMatchObject({
      name: "gateway-teams",
      reason,
    });
  }

  it("dispatches an activity with a valid connector token, fetching the key set only once", async () => {
    for (const text of ["one", "two", "three"])
      expect((await world.fake.deliver(activity(text))).status).toBe(200);
    await rig.session.idle(5_000);
    expect(await rig.userMessages(conversationId)).toEqual(["one", "two", "three"]);
    expect(world.fake.openIdFetches).toBe(1);
    expect(world.fake.keyFetches).toBe(1);
  });

  it("accepts a token expired less than 5 minutes ago (clock skew)", async () => {
    const token = await world.fake.token({ expiresIn: -240 });
    expect((await world.fake.deliver(activity("skewed"), `Bearer ${token}`)).status).toBe(200);
  });

  it("refuses a token expired more than 5 minutes ago", async () => {
    const token = await world.fake.token({ expiresIn: -400 });
    await expectRefused(await world.fake.deliver(activity("expired"), `Bearer ${token}`), "bad_token");
  });

  it("refuses a token for another app id", async () => {
    const token = await world.fake.token({ appId: "11111111-0000-0000-0000-000000000000" });
    await expectRefused(await world.fake.deliver(activity("wrong aud"), `Bearer ${token}`), "bad_token");
  });

  it("refuses a token from another issuer", async () => {
    const token = await world.fake.token({ issuer: "https://sts.windows.net/evil/" });
    await expectRefused(await world.fake.deliver(activity("wrong iss"), `Bearer ${token}`), "bad_token");
  });

  it("refuses a token signed by a key the connector did not publish", async () => {
    const rogue = await connectorKey();
    const token = await world.fake.token({}, rogue);
    await expectRefused(await world.fake.deliver(activity("rogue key"), `Bearer ${token}`), "bad_token");
  });

  it("refuses a token with one byte of its signature changed", async () => {
    const token = await world.fake.token();
    const last = token.at(-2) === "A" ? "B" : "A";
    const tampered = `${token.slice(0, -2)}${last}${token.at(-1)}`;
    await expectRefused(await world.fake.deliver(activity("tampered"), `Bearer ${tampered}`), "bad_token");
  });

  it("refuses a valid token whose serviceurl claim differs from the activity's serviceUrl", async () => {
    const forged = { ...activity("redirect my token"), serviceUrl: "https://attacker.example/" };
    await expectRefused(await world.fake.deliver(forged), "service_url_mismatch");
  });

  it("refuses a valid token that carries no serviceurl claim at all", async () => {
    const token = await world.fake.token({ serviceUrl: null });
    await expectRefused(
      await world.fake.deliver(activity("no serviceurl"), `Bearer ${token}`),
      "service_url_mismatch",
    );
  });

  it("refuses an activity from a channel the signing key is not endorsed for", async () => {
    await expectRefused(
      await world.fake.deliver({ ...activity("webchat"), channelId: "webchat" }),
      "not_endorsed",
    );
  });

  it("refuses a request without a bearer token", async () => {
    await expectRefused(await world.fake.deliver(activity("anonymous"), ""), "missing_token");
  });
});

describe("the outbound token", () => {
  let world: TeamsWorld;
  beforeEach(async () => {
    world = await teamsWorld();
  });
  afterEach(() => world.close());

  it("is requested with client credentials, cached, and fetched again 60 s before it expires", async () => {
    let now = 1_000_000;
    const token = new BotToken(
      `${world.fake.loginBaseUrl}/botframework.com/oauth2/v2.0/token`,
      SECRETS.TEAMS_TEST_APP_ID,
      SECRETS.TEAMS_TEST_APP_PASSWORD,
      { envVar: "TEAMS_TEST_APP_PASSWORD", now: () => now },
    );
    const first = await token.get();
    const [a, b] = await Promise.all([token.get(), token.get()]);
    expect([a, b]).toEqual([first, first]);
    now += (3600 - 61) * 1000;
    expect(await token.get()).toBe(first);
    expect(world.fake.tokenRequests).toBe(1);
    now += 2_000; // now within 60 s of the stated expiry
    const second = await token.get();
    expect(second).not.toBe(first);
    expect(world.fake.tokenRequests).toBe(2);
  });

  it("a wrong app password is a credentials failure naming the password's variable", async () => {
    const token = new BotToken(
      `${world.fake.loginBaseUrl}/botframework.com/oauth2/v2.0/token`,
      SECRETS.TEAMS_TEST_APP_ID,
      "nope",
      { envVar: "TEAMS_TEST_APP_PASSWORD" },
    );
    await expect(token.get()).rejects.toMatchObject({
      name: "GatewaySendError",
      credentials: true,
      permanent: false,
      envVar: "TEAMS_TEST_APP_PASSWORD",
      status: 401,
    });
  });

  it("an unknown app id (AADSTS700016, 400 unauthorized_client) is a credentials failure too", async () => {
    const token = new BotToken(
      `${world.fake.loginBaseUrl}/botframework.com/oauth2/v2.0/token`,
      "99999999-0000-0000-0000-000000000000",
      SECRETS.TEAMS_TEST_APP_PASSWORD,
      { envVar: "TEAMS_TEST_APP_PASSWORD" },
    );
    await expect(token.get()).rejects.toMatchObject({ credentials: true, status: 400 });
  });
});

describe("configuration", () => {
  it("a start without the app password fails, naming its variable", async () => {
    const { TeamsGateway } = await import("../src/index.js");
    const gateway = new TeamsGateway({
      appIdEnvVar: "TEAMS_TEST_APP_ID",
      appPasswordEnvVar: "TEAMS_UNSET_PASSWORD",
    });
    await expect(startSessionRig(gateway)).rejects.toMatchObject({
      code: "missing_config",
      envVar: "TEAMS_UNSET_PASSWORD",
    });
  });
});
