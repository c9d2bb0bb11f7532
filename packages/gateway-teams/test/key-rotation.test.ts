// Microsoft rotates the connector's signing keys while the bot runs (a new `kid` in the key set,
// the old one withdrawn). The bot must follow: an unknown `kid` refetches the key set, but at most
// once per 5 minutes (a flood of unknown kids costs one fetch), and the set is refreshed at least
// daily; a key nobody published still gets 401. The clock (Date only) is moved by hand; HTTP is real.
import { connectorKey } from "@agentsvc/testkit";
import { eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ConnectorAuth } from "../src/connector-auth.js";
import { alice, SECRETS, type TeamsWorld, teamsWorld } from "./harness.js";

const MINUTE = 60_000;
let world: TeamsWorld;
let auth: ConnectorAuth;

const later = (ms: number) => vi.setSystemTime(Date.now() + ms);
const verify = async (token: string) => auth.verify(`Bearer ${token}`);

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
  world = await teamsWorld();
  auth = new ConnectorAuth(world.fake.openIdMetadataUrl, SECRETS.TEAMS_TEST_APP_ID);
});
afterEach(async () => {
  await world.close();
  vi.useRealTimers();
});

describe("the connector's key set", () => {
  it("accepts a token signed with a key published after the set was fetched, and refuses the withdrawn one", async () => {
    const old = world.fake.signingKey;
    expect((await verify(await world.fake.token())).ok).toBe(true);
    await world.fake.rotateKey();
    later(6 * MINUTE);
    expect(await verify(await world.fake.token())).toMatchObject({ ok: true });
    expect(world.fake.keyFetches).toBe(2);
    expect(await verify(await world.fake.token({}, old))).toMatchObject({ ok: false, reason: "bad_token" });
  });

  it("a flood of unknown kids costs one fetch per 5 minutes, and each such token is refused", async () => {
    expect((await verify(await world.fake.token())).ok).toBe(true);
    expect(world.fake.keyFetches).toBe(1);
    later(6 * MINUTE);
    const rogues = await Promise.all(Array.from({ length: 20 }, () => connectorKey()));
    const flood = await Promise.all(rogues.map(async (k) => verify(await world.fake.token({}, k))));
    expect(flood.every((v) => !v.ok && v.reason === "bad_token")).toBe(true);
    expect(world.fake.keyFetches).toBe(2);
    later(4 * MINUTE);
    for (const k of rogues.slice(0, 5)) expect((await verify(await world.fake.token({}, k))).ok).toBe(false);
    expect(world.fake.keyFetches).toBe(2);
    later(2 * MINUTE);
    expect((await verify(await world.fake.token({}, rogues[0]))).ok).toBe(false);
    expect(world.fake.keyFetches).toBe(3);
    // The published key kept working throughout.
    expect((await verify(await world.fake.token())).ok).toBe(true);
  });

  it("is fetched again at least once a day even when every kid is known", async () => {
    expect((await verify(await world.fake.token())).ok).toBe(true);
    later(12 * 60 * MINUTE);
    expect((await verify(await world.fake.token())).ok).toBe(true);
    expect(world.fake.keyFetches).toBe(1);
    later(12 * 60 * MINUTE + MINUTE);
    expect((await verify(await world.fake.token())).ok).toBe(true);
    expect(world.fake.keyFetches).toBe(2);
  });
});

describe("the key endpoint down at the daily refresh", () => {
  it("keeps accepting tokens signed with the cached keys, and refuses unknown kids", async () => {
    expect((await verify(await world.fake.token())).ok).toBe(true);
    world.fake.keySetUnavailable = true;
    later(25 * 60 * MINUTE);
    expect(await verify(await world.fake.token())).toMatchObject({ ok: true });
    expect(world.fake.keyFetches).toBe(2); // it did try
    const rogue = await connectorKey();
    expect(await verify(await world.fake.token({}, rogue))).toMatchObject({ ok: false });
    world.fake.keySetUnavailable = false;
    later(6 * MINUTE);
    expect((await verify(await world.fake.token())).ok).toBe(true);
  });
});

describe("a running bot across a key rotation", () => {
  let rig: SessionRig | undefined;
  afterEach(async () => {
    await rig?.stop();
    rig = undefined;
  });

  it("keeps answering after the connector switches to a new key", async () => {
    rig = await startSessionRig(world.build());
    const conversationId = "a:1rotation";
    const say = (text: string) => world.fake.deliverMessage({ conversationId, from: alice, text });
    expect((await say("before")).status).toBe(200);
    await world.fake.rotateKey();
    later(30 * MINUTE);
    expect((await say("after")).status).toBe(200);
    await eventually(() => world.fake.sent.length === 2, "both replies");
    expect(await rig.userMessages(conversationId)).toEqual(["before", "after"]);
  });
});
