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
