// The bot never notifies a team for a visitor: `@org/team` in its comments carries a zero-width
// joiner after the `@` (only organization members may mention a team, and the bot's account may);
// `@user` stays a mention (anyone who comments may mention a user). The demo model quotes the
// visitor's comment, as a model asked to repeat it would; its tool arguments are that comment too.
import { eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { MESSAGE_LIMIT } from "../src/index.js";
import { quietTeamMentions } from "../src/team-mentions.js";
import { alice, type GithubWorld, githubWorld, SECRETS } from "./harness.js";

const ZWJ = "\u200d";
const bot = `@${SECRETS.GH_TEST_BOT_NAME}`;
let world: GithubWorld | undefined;
let rig: SessionRig | undefined;

afterEach(async () => {
  await rig?.stop();
  await world?.close();
  rig = undefined;
  world = undefined;
});

async function commented(body: string) {
  world = await githubWorld();
  rig = await startSessionRig(world.build());
  const answer = await world.fake.commentOnIssue({ number: 7, body: `${bot} ${body}`, user: alice });
  expect(answer.status).toBe(200);
  const fake = world.fake;
  await eventually(() => fake.posted.length > 0, "the bot's comment");
  return fake.posted[0]?.body ?? "";
}

describe("github team mentions", () => {
  it("a reply repeating @org/team posts it broken; @user stays a mention", async () => {
    const body = await commented("ping @octo-org/security and @OctoCorp/all-staff, thanks @bob");
    expect(body).toContain(`ping @${ZWJ}octo-org/security and @${ZWJ}OctoCorp/all-staff, thanks @bob`);
    expect(body).not.toMatch(/@[\w-]+\//);
  });

  it("an approval request repeating @org/team carries it broken", async () => {
    const body = await commented("use delete_file and tell @octo-org/admins");
    expect(body).toContain("Approval needed");
    expect(body).toContain(`@${ZWJ}octo-org/admins`);
    expect(body).not.toMatch(/@octo-org\//);
  });

  it("a reply the joiners would push over the comment limit is cut again, every piece quiet", async () => {
    world = await githubWorld();
    const pieces = world.build().chunk("@o/t ".repeat(14_000));
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(MESSAGE_LIMIT);
      expect(piece).not.toMatch(/@o\//);
    }
  });
});

describe("quietTeamMentions (what GitHub reads as a team mention)", () => {
  const quiet = (s: string) => quietTeamMentions(s).replaceAll(ZWJ, "⁀");

  it.each([
    ["(@org/team)", "(@⁀org/team)"],
    ["**@org/team**", "**@⁀org/team**"],
    ["\\@org/team", "\\@⁀org/team"],
    ["&#64;org/team", "&#64;⁀org/team"],
    ["@org&#47;team", "@⁀org&#47;team"],
    ["&commat;org&sol;team", "&commat;⁀org&sol;team"],
    ["<div>\n@org/team\n</div>", "<div>\n@⁀org/team\n</div>"],
    ["- [ ] @org/team-a", "- [ ] @⁀org/team-a"],
  ])("%j is posted as %j", (input, expected) => {
    expect(quiet(input)).toBe(expected);
  });

  it.each([
    "@alice and @octo-org",
    // Code and links are not read for mentions; a copied command stays as written.
    "`npm i @angular/core`",
    "```sh\nnpm i @angular/core\n```",
    "[@org/team](https://github.com/orgs/org/teams/team)",
    "https://www.npmjs.com/package/@angular/core",
    "mail me@example.org/x",
  ])("%j is posted as written", (input) => {
    expect(quietTeamMentions(input)).toBe(input);
  });
});
