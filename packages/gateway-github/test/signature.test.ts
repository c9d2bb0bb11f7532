// X-Hub-Signature-256 over the exact raw bytes: a forged, altered or unsigned delivery is refused
// with a bare 401, logged, and dispatches nothing.
import { captureLogs, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hubSignature, verifyHubSignature } from "@agentsvc/webhook-kit";
import { alice, type GithubWorld, githubWorld, SECRETS } from "./harness.js";

describe("the signature construction", () => {
  it("matches GitHub's published test values", () => {
    // docs.github.com, "Validating webhook deliveries" > "Testing the webhook payload validation".
    const header = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
    expect(hubSignature("It's a Secret to Everybody", "Hello, World!")).toBe(header);
    expect(
      verifyHubSignature("It's a Secret to Everybody", header, new TextEncoder().encode("Hello, World!")),
    ).toEqual({
      ok: true,
    });
    expect(
      verifyHubSignature("It's a Secret to Everybody", header, new TextEncoder().encode("Hello, World")),
    ).toEqual({
      ok: false,
      reason: "mismatch",
    });
  });
});

describe("github webhook signatures over HTTP", () => {
  let world: GithubWorld;
  let rig: SessionRig;
  let logs: ReturnType<typeof captureLogs>;
  const thread = "repo:octo-org/hello-world:issue:7";

  beforeEach(async () => {
    world = await githubWorld();
    logs = captureLogs();
    rig = await startSessionRig(world.build(), { logger: logs.logger });
  });
  afterEach(async () => {
    await rig.stop();
    await world.close();
  });

  const payload = (text: string) =>
    JSON.stringify(
      {
        action: "created",
        issue: { number: 7 },
        comment: {
          id: 55,
          body: `@${SECRETS.GH_TEST_BOT_NAME} ${text} \u00fcber`,
          user: alice,
          created_at: new Date().toISOString(),
        },
        repository: { name: "hello-world", full_name: "octo-org/hello-world", owner: { login: "octo-org" } },
        sender: alice,
      },
      null,
      2,
    ).replace("über", "\\u00fcber");

  const headersFor = (signature?: string) => ({
    "content-type": "application/json",
    "x-github-event": "issue_comment",
    "x-github-delivery": crypto.randomUUID(),
    ...(signature ? { "x-hub-signature-256": signature } : {}),
  });

  async function expectRefused(answer: { status: number; body: string }, reason: string) {
    expect(answer.status).toBe(401);
    expect(answer.body).toBe("");
    await rig.session.idle(5_000);
    expect(await rig.userMessages(thread)).toEqual([]);
    expect(world.fake.posted).toEqual([]);
    const line = logs.lines().find((l) => l.msg === "webhook request refused: not verified");
    expect(line).toMatchObject({ name: "gateway-github", reason });
  }

  it("dispatches a correctly signed delivery (the control case)", async () => {
    const body = payload("control");
    expect(
      (await world.fake.deliver("issue_comment", body, "d-1", headersFor(world.fake.sign(body)))).status,
    ).toBe(200);
    await rig.session.idle(5_000);
    expect(await rig.userMessages(thread)).toEqual(["control über"]);
  });

  it("refuses a body with one byte changed after signing", async () => {
    const body = payload("tampered");
    const altered = body.replace("tampered", "tamperef");
    await expectRefused(
      await world.fake.deliver("issue_comment", altered, "d-2", headersFor(world.fake.sign(body))),
      "mismatch",
    );
  });

  it("refuses the same JSON re-serialised (signature of the original bytes)", async () => {
    const body = payload("reserialised");
    const again = JSON.stringify(JSON.parse(body));
    await expectRefused(
      await world.fake.deliver("issue_comment", again, "d-3", headersFor(world.fake.sign(body))),
      "mismatch",
    );
  });

  it("refuses a delivery without the signature header", async () => {
    await expectRefused(
      await world.fake.deliver("issue_comment", payload("unsigned"), "d-4", headersFor()),
      "missing_header",
    );
  });

  it("refuses a delivery signed with another secret", async () => {
    const body = payload("wrong");
    const signature = world.fake.sign(body, `${SECRETS.GH_TEST_WEBHOOK_SECRET}!`);
    await expectRefused(
      await world.fake.deliver("issue_comment", body, "d-5", headersFor(signature)),
      "mismatch",
    );
  });
});
