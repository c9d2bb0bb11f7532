// A Mattermost entry's approval buttons (`actionSecretEnvVar`) through the built bin: the one webhook
// route of a gateway kind no bin test had called (/webhooks/mattermost). An approval of a tool asked
// in a direct message is posted with buttons whose context the service signed and whose URL is the
// config's publicBaseUrl; a press whose signature does not check is refused (403) and runs nothing,
// a press of the signed context runs the tool and the answer's update takes the buttons away.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { eventually, freePort, MattermostFake, within } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, serveBin } from "./child.js";
import { linkPackages, tempDir, writeFiles } from "./helpers.js";

const DM = "dmchan00000000000000000000";
const ALICE = "alice000000000000000000000";

type Attachment = { actions: { id: string; integration: { url: string; context: { sig: string } } }[] };

let fake: MattermostFake;
let served: Served;
let marks: string;

beforeAll(async () => {
  fake = await MattermostFake.start();
  marks = tempDir("agentsvc-mm-marks-");
  const port = await freePort();
  const dir = writeFiles(tempDir("agentsvc-mm-buttons-"), {
    "agents/bot.mjs": `import { writeFileSync } from "node:fs";
import { join } from "node:path";
export default { kind: "agent", name: "bot", model: { provider: "demo" },
  tools: [{ kind: "tool", name: "transfer", description: "Moves money.", needsApproval: true,
    input: { type: "json-schema", schema: { type: "object", properties: { note: { type: "string" } } } },
    execute: () => { writeFileSync(join(process.env.KNOB_MARKS, "transferred"), ""); return "moved"; } }] };
`,
    "gateways/mattermost.yaml": `type: mattermost\ntokenEnvVar: MM_TOKEN\nactionSecretEnvVar: MM_ACTION_SECRET\nserverUrl: ${fake.url}\n`,
    "agentsvc.config.yaml": `publicBaseUrl: http://127.0.0.1:${port}\n`,
  });
  linkPackages(dir, { "@agentsvc/gateway-mattermost": "packages/gateway-mattermost" });
  served = await serveBin(["start", dir, "--port", String(port)], {
    MM_TOKEN: fake.token,
    MM_ACTION_SECRET: "s3cret-for-buttons",
    KNOB_MARKS: marks,
  });
  await within(fake.connected(), 20_000, "the bot's WebSocket");
}, 60_000);

afterAll(async () => {
  await served?.stop();
  await fake?.close();
});

describe("agentsvc start: a Mattermost entry's approval buttons", () => {
  it("posts buttons calling publicBaseUrl's /webhooks/mattermost; a forged press is refused, a signed one runs the tool and removes them", async () => {
    fake.userPosts(DM, ALICE, "please use transfer now");
    await eventually(() => fake.botPosts.some((p) => p.props?.attachments), "the buttons", 20_000);
    const post = fake.botPosts.find((p) => p.props?.attachments);
    const attachments = (post?.props?.attachments ?? []) as Attachment[];
    const approve = attachments[0]?.actions.find((a) => a.id === "approve");
    expect(approve?.integration.url, served.output()).toBe(`${served.url}/webhooks/mattermost`);

    // One changed character of the signature (the first: all six of its bits count).
    const signed = approve?.integration.context.sig as string;
    (approve as NonNullable<typeof approve>).integration.context.sig =
      `${signed.startsWith("A") ? "B" : "A"}${signed.slice(1)}`;
    expect((await fake.press(post?.id as string, "approve", ALICE)).status).toBe(403);
    expect(existsSync(join(marks, "transferred"))).toBe(false);

    (approve as NonNullable<typeof approve>).integration.context.sig = signed;
    const answer = await fake.press(post?.id as string, "approve", ALICE);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ update: { message: "Approved.", props: {} } });
    await eventually(() => existsSync(join(marks, "transferred")), "the approved tool's run", 20_000);
    expect(post?.props).toEqual({});
  }, 60_000);
});
