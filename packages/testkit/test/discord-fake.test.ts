// The Discord fake's ids are snowflakes as Discord documents them
// (https://discord.com/developers/docs/reference#snowflakes): they carry their creation time and
// never repeat, across a restart of the fake too.
import { afterEach, describe, expect, it } from "vitest";
import { DiscordFake } from "../src/index.js";
import { snowflakeTime } from "../src/discord/snowflake.js";

const fakes: DiscordFake[] = [];
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close();
});

describe("discord fake", () => {
  it("hands out increasing snowflakes that decode to their creation time, and none again after a restart", async () => {
    const before = Date.now();
    const first = await DiscordFake.start();
    fakes.push(first);
    const a = Array.from({ length: 50 }, () => first.nextId());
    await first.close();
    fakes.length = 0;
    const second = await DiscordFake.start();
    fakes.push(second);
    const b = Array.from({ length: 50 }, () => second.nextId());
    const all = [...a, ...b];
    expect(new Set(all).size).toBe(all.length);
    for (let i = 1; i < all.length; i++)
      expect(BigInt(all[i] as string) > BigInt(all[i - 1] as string)).toBe(true);
    for (const id of all) expect(snowflakeTime(id)).toBeGreaterThanOrEqual(before);
  });
});

// Create Message's nonce (https://discord.com/developers/docs/resources/message#create-message):
// "an integer or a string of at most 25 characters"; with `enforce_nonce: true`, "if another message
// was created by the same author with the same nonce, that message will be returned and no new
// message will be created".
describe("discord fake: Create Message nonce", () => {
  async function started(): Promise<DiscordFake> {
    const fake = await DiscordFake.start();
    fakes.push(fake);
    return fake;
  }
  const post = (fake: DiscordFake, body: Record<string, unknown>) =>
    fetch(`${fake.apiBaseUrl}/channels/800000000000000001/messages`, {
      method: "POST",
      headers: { authorization: `Bot ${fake.token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("a repeated nonce with enforce_nonce returns the first message and creates none", async () => {
    const fake = await started();
    const first = await post(fake, { content: "one", nonce: "k1", enforce_nonce: true });
    const again = await post(fake, { content: "one again", nonce: "k1", enforce_nonce: true });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    const a = (await first.json()) as { id: string; nonce: string };
    const b = (await again.json()) as { id: string; content: string };
    expect(b).toMatchObject({ id: a.id, content: "one" });
    expect(a.nonce).toBe("k1");
    expect(fake.rest.botMessages.map((m) => m.content)).toEqual(["one"]);
  });

  it("without enforce_nonce, or with another nonce, every create is a new message", async () => {
    const fake = await started();
    await post(fake, { content: "a", nonce: "k1" });
    await post(fake, { content: "b", nonce: "k1" });
    await post(fake, { content: "c", nonce: "k2", enforce_nonce: true });
    await post(fake, { content: "d", nonce: 7, enforce_nonce: true });
    expect(fake.rest.botMessages.map((m) => m.content)).toEqual(["a", "b", "c", "d"]);
  });

  it("a nonce over 25 characters is refused with 400 Invalid Form Body", async () => {
    const fake = await started();
    const answer = await post(fake, { content: "x", nonce: "n".repeat(26), enforce_nonce: true });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ code: 50035, errors: { nonce: {} } });
    expect((await post(fake, { content: "y", nonce: "n".repeat(25) })).status).toBe(200);
    expect(fake.rest.botMessages.map((m) => m.content)).toEqual(["y"]);
  });

  it("a dropAnswer fault creates the message and loses the answer", async () => {
    const fake = await started();
    fake.failNext("^POST /channels/\\d+/messages$", { dropAnswer: true });
    await expect(post(fake, { content: "lost answer" })).rejects.toThrow();
    expect(fake.rest.botMessages.map((m) => m.content)).toEqual(["lost answer"]);
    expect((await post(fake, { content: "next" })).status).toBe(200);
  });
});
