// The bot never pings a whole channel for a visitor: `@channel`, `@all`, `@here` in what it posts are
// broken with a zero-width joiner after the `@` (Mattermost notifies for them with the poster's
// "use channel mentions" permission, which the bot holds and a visitor may not). The demo model
// quotes the visitor's message, as a model asked to repeat it would; its tool arguments are that
// message too, so the approval card carries it.
import { eventually, hostWebhooks, MattermostFake, type WebhookHost, within } from "@agentsvc/testkit";
import { type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { quietChannelMentions } from "../src/channel-mentions.js";
import { createGateway, MESSAGE_LIMIT } from "../src/index.js";

const ZWJ = "\u200d";
const TOWN = "townsquare0000000000000000";
const EVE = "eve00000000000000000000000";

let fake: MattermostFake | undefined;
let host: WebhookHost | undefined;
let rig: SessionRig | undefined;

afterEach(async () => {
  await rig?.stop();
  await host?.close();
  await fake?.close();
  rig = undefined;
  host = undefined;
});

async function world(o: { buttons?: boolean; allowChannelMentions?: boolean } = {}) {
  fake = await MattermostFake.start();
  fake.channels.set(TOWN, "O");
  if (o.buttons) host = await hostWebhooks();
  const gateway = createGateway({
    name: "mattermost",
    tokenEnvVar: "MM_TOKEN",
    env: { MM_TOKEN: fake.token, MM_ACTION_SECRET: "s3cret-for-buttons" },
    serverUrl: fake.url,
    ...(o.buttons ? { actionSecretEnvVar: "MM_ACTION_SECRET" } : {}),
    ...(o.allowChannelMentions !== undefined ? { allowChannelMentions: o.allowChannelMentions } : {}),
  });
  if (host) host.mount("mattermost", gateway.webhooks);
  rig = await startSessionRig(gateway, host ? { publicBaseUrl: host.url } : {});
  await within(fake.connected(), 3_000, "the bot's WebSocket");
  return fake;
}

/** A visitor in an open channel has the bot repeat `text`; the bot's first post. */
async function repeated(f: MattermostFake, text: string) {
  const { confirmed } = f.userPosts(TOWN, EVE, `@${f.botUsername} ${text}`, { mentions: [f.botUserId] });
  await within(confirmed, 3_000, "the post read");
  await eventually(() => f.botPosts.length > 0, "the bot's post");
  return f.botPosts[0];
}

describe("mattermost channel-wide mentions", () => {
  it("a reply repeating @channel, @all and @here posts them broken; @username stays a mention", async () => {
    const f = await world();
    const post = await repeated(f, "say @channel @All and @here! then ask @alice");
    expect(post?.message).toContain(`say @${ZWJ}channel @${ZWJ}All and @${ZWJ}here! then ask @alice`);
    expect(post?.message).not.toMatch(/@(channel|all|here)\b/i);
  });

  it("an approval card carries the visitor's @here broken in its text (the server reads attachments)", async () => {
    const f = await world({ buttons: true });
    f.userPosts(TOWN, EVE, `@${f.botUsername} use delete_file @here wake up`, { mentions: [f.botUserId] });
    await eventually(() => f.botPosts.some((p) => p.props?.attachments), "the buttons");
    const card = f.botPosts.find((p) => p.props?.attachments);
    const [attachment] = (card?.props?.attachments ?? []) as { text: string }[];
    expect(attachment?.text).toContain(`@${ZWJ}here wake up`);
    expect(attachment?.text).not.toMatch(/@here/i);
  });

  it("an approval sent as text (no buttons) carries it broken too", async () => {
    const f = await world();
    f.userPosts(TOWN, EVE, `@${f.botUsername} use delete_file @channel now`, { mentions: [f.botUserId] });
    await eventually(() => f.botPosts.some((p) => p.message.includes("delete_file")), "the request");
    const request = f.botPosts.find((p) => p.message.includes("delete_file"));
    expect(request?.message).toContain(`@${ZWJ}channel now`);
    expect(request?.message).not.toMatch(/@channel/i);
  });

  it("allowChannelMentions: true posts them as written", async () => {
    const f = await world({ allowChannelMentions: true });
    const post = await repeated(f, "say @channel");
    expect(post?.message).toContain("say @channel");
    expect(post?.message).not.toContain(ZWJ);
  });
});

describe("mattermost pieces", () => {
  it("a reply the joiners would push over the post limit is cut again, every piece quiet", () => {
    const gateway = createGateway({
      name: "mattermost",
      tokenEnvVar: "T",
      env: {},
      serverUrl: "http://127.0.0.1:1",
    });
    const pieces = gateway.chunk("@all ".repeat(4_000));
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(MESSAGE_LIMIT);
      expect(piece).not.toMatch(/@all/);
    }
    expect(pieces.join("").replaceAll(ZWJ, "").replace(/\s+/g, "")).toBe("@all".repeat(4_000));
  });
});

describe("quietChannelMentions (how the server reads words)", () => {
  const quiet = (s: string) => quietChannelMentions(s).replaceAll(ZWJ, "⁀");

  it.each([
    // Ends of a word: punctuation, a trailing . - : _, a part between . - : after another word.
    ["@channel.", "@⁀channel."],
    ["(@all)", "(@⁀all)"],
    ["@here_:", "@⁀here_:"],
    ["note.@all", "note.@⁀all"],
    ["x-@here-y", "x-@⁀here-y"],
    ["@ALL", "@⁀ALL"],
    // What the Markdown decodes to: escapes and character references (decimal, hex, named).
    ["\\@channel", "\\@⁀channel"],
    ["&#64;channel", "&#64;⁀channel"],
    ["&#x40;here", "&#x40;⁀here"],
    ["&commat;all", "&commat;⁀all"],
    ["@&#99;hannel", "@⁀&#99;hannel"],
    ["&#00000064;all", "&#00000064;⁀all"],
    // Text the server reads: a link's text, emphasis, a table cell, an image's alt, raw HTML.
    ["[@here](https://example.com)", "[@⁀here](https://example.com)"],
    ["**@channel**", "**@⁀channel**"],
    ["| a |\n| - |\n| @all |", "| a |\n| - |\n| @⁀all |"],
    ["![@here](https://example.com/a.png)", "![@⁀here](https://example.com/a.png)"],
    ["<b>@all</b>", "<b>@⁀all</b>"],
    // A bare or bracketed URL: the server reads an autolink's text as words.
    ["see https://example.com/@here now", "see https://example.com/@⁀here now"],
    ["<https://example.com/@all>", "<https://example.com/@⁀all>"],
  ])("%j is posted as %j", (input, expected) => {
    expect(quiet(input)).toBe(expected);
  });

  it.each([
    // Usernames and words that only start like one of the three.
    "@alice",
    "@allison and @hereford",
    "@all_team",
    "@channels",
    // Code is not read for mentions, and a copied command must stay as written.
    "`@here`",
    "```\nnotify @channel\n```",
    "    indented @all",
    // A destination is not text.
    "[docs](https://example.com/@here/x)",
    "nothing to see",
  ])("%j is posted as written", (input) => {
    expect(quietChannelMentions(input)).toBe(input);
  });
});

// The server's reading of plain text, written from its documented word rules on their own (not the
// quieting's code), over random text: no word it would read as channel-wide survives quieting.
describe("quietChannelMentions against the server's word rules", () => {
  const SYSTEM = new Set(["@channel", "@all", "@here"]);
  const system = (w: string) => SYSTEM.has(w.toLowerCase());
  function decode(text: string): string {
    return text
      .replace(/\\([!-/:-@[-`{-~])/g, "$1")
      .replace(/&#(\d{1,8});/g, (_, d: string) => String.fromCodePoint(Number(d)))
      .replace(/&#x([\da-f]{1,8});/gi, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
      .replace(/&commat;/g, "@");
  }
  function liveChannelWide(text: string): string | undefined {
    for (const raw of decode(text).split(/[^\p{L}\p{N}:._@-]+/u)) {
      if (raw.length > 1 && raw.startsWith(":") && raw.endsWith(":")) continue;
      const word = raw.replace(/^[:._-]+/, "");
      if (system(word)) return word;
      for (let cut = word; /[.:_-]$/.test(cut); ) {
        cut = cut.slice(0, -1);
        if (system(cut)) return word;
      }
      if (word.startsWith("@")) continue;
      if (/[.:-]/.test(word)) for (const part of word.split(/[.:-]/)) if (system(part)) return word;
    }
    return undefined;
  }
  const TOKENS = ["@", "@", "channel", "all", "here", "HERE", "al", ".", "-", ":", " ", "x", "é", "1"];
  const MORE = ["&#64;", "&#x40;", "&commat;", "\\@", "&#99;", "son", "(", ")", "!", ",", "@@"];

  it("20 000 random texts: nothing channel-wide left, and quieting twice changes nothing", () => {
    let seed = 45;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const alphabet = [...TOKENS, ...MORE];
    for (let i = 0; i < 20_000; i++) {
      let text = "";
      for (let n = 1 + next(12); n > 0; n--) text += alphabet[next(alphabet.length)];
      const quiet = quietChannelMentions(text);
      expect({ text, live: liveChannelWide(quiet) }).toEqual({ text, live: undefined });
      expect(quietChannelMentions(quiet)).toBe(quiet);
    }
  });
});
