// Approvals as interactive message buttons, over real HTTP: the gateway's route hosted on 127.0.0.1
// as the server mounts it, the fake POSTing the button's context with the presser as Mattermost does
// (https://developers.mattermost.com/integrate/plugins/interactive-messages/).
import { eventually, hostWebhooks, MattermostFake, type WebhookHost, within } from "@agentsvc/testkit";
import { type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGateway, type MattermostGateway } from "../src/index.js";

const DM = "dmchan00000000000000000000";
const ALICE = "alice000000000000000000000";
let fake: MattermostFake;
let host: WebhookHost;
let rig: SessionRig;
let gateway: MattermostGateway;

beforeEach(async () => {
  fake = await MattermostFake.start();
  host = await hostWebhooks();
  gateway = createGateway({
    name: "mattermost",
    tokenEnvVar: "MM_TOKEN",
    actionSecretEnvVar: "MM_ACTION_SECRET",
    env: { MM_TOKEN: fake.token, MM_ACTION_SECRET: "s3cret-for-buttons" },
    serverUrl: fake.url,
  });
  host.mount("mattermost", gateway.webhooks);
  rig = await startSessionRig(gateway, { publicBaseUrl: host.url });
  await within(fake.connected(), 3_000, "the bot's WebSocket");
});

afterEach(async () => {
  await rig?.stop();
  await host.close();
  await fake.close();
});

async function requestPost() {
  fake.userPosts(DM, ALICE, "please use delete_file notes.txt");
  await eventually(() => fake.botPosts.some((p) => p.props?.attachments), "the buttons");
  return fake.botPosts.find((p) => p.props?.attachments);
}

describe("mattermost approval buttons", () => {
  it("a press decides for the presser once, and the answer's update removes the buttons", async () => {
    const post = await requestPost();
    expect(post?.props?.attachments).toMatchObject([
      {
        actions: [
          { id: "approve", name: "Approve" },
          { id: "reject", name: "Reject" },
        ],
      },
    ]);
    const answer = await fake.press(post?.id as string, "approve", ALICE);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ update: { message: "Approved.", props: {} } });
    await eventually(() => rig.executed.length === 1, "the approved tool");
    expect(post?.props).toEqual({});
  });

  it("a context whose signature does not check is refused and decides nothing", async () => {
    const post = await requestPost();
    type Attachment = { actions: { integration: { context: { sig: string } } }[] };
    const attachments = (post?.props?.attachments ?? []) as Attachment[];
    const context = attachments[0]?.actions[0]?.integration.context;
    if (!context) throw new Error("no button context");
    // One changed character of the signature: the route must refuse it. The first character, whose
    // six bits all count (a base64url HMAC-SHA256's last character has two unused bits, so the old
    // "last two -> AA" left about 1 in 1,000 signatures unchanged and the test failed by chance).
    context.sig = `${context.sig.startsWith("A") ? "B" : "A"}${context.sig.slice(1)}`;
    const answer = await fake.press(post?.id as string, "approve", ALICE);
    expect(answer.status).toBe(403);
    await rig.session.idle(2_000);
    expect(rig.executed).toEqual([]);
  });
});
