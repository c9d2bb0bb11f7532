// X-Hub-Signature-256 over the exact raw bytes: a forged, altered or unsigned delivery is refused
// with a bare 401, logged, and dispatches nothing.
import { captureLogs, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SECRETS, type WhatsappWorld, whatsappWorld, nowSeconds } from "./harness.js";

// Meta publishes no test vector for X-Hub-Signature-256; the construction is the one GitHub
// documents with a vector, which @agentsvc/webhook-kit's tests check against.

describe("whatsapp webhook signatures over HTTP", () => {
  let world: WhatsappWorld;
  let rig: SessionRig;
  let logs: ReturnType<typeof captureLogs>;

  beforeEach(async () => {
    world = await whatsappWorld();
    logs = captureLogs();
    rig = await startSessionRig(world.build(), { logger: logs.logger });
  });
  afterEach(async () => {
    await rig.stop();
    await world.close();
  });

  const from = "15550009999";
  // Pretty-printed with a non-ASCII escape, as a sender may format it: re-serialising changes the bytes.
  const signedBody = (text: string) =>
    JSON.stringify(
      world.fake.notification(from, [
        {
          from,
          id: `wamid.${text}`,
          timestamp: nowSeconds(),
          type: "text",
          text: { body: `${text} caf\u00e9` },
        },
      ]),
      null,
      2,
    ).replace("café", "caf\\u00e9");

  async function expectRefused(answer: { status: number; body: string }) {
    expect(answer.status).toBe(401);
    expect(answer.body).toBe("");
    await rig.session.idle(5_000);
    expect(await rig.userMessages(from)).toEqual([]);
    expect(world.fake.sent).toEqual([]);
  }

  const rejections = () => logs.lines().filter((l) => l.msg === "webhook request refused: not verified");

  it("dispatches a correctly signed delivery (the control case)", async () => {
    const body = signedBody("control");
    const answer = await world.fake.deliver(body);
    expect(answer.status).toBe(200);
    await rig.session.idle(5_000);
    expect(await rig.userMessages(from)).toEqual(["control café"]);
  });

  it("refuses a body with one byte changed after signing", async () => {
    const body = signedBody("tampered");
    const bytes = Buffer.from(body);
    const at = bytes.indexOf("tampered") + 1;
    bytes[at] = (bytes[at] as number) ^ 1;
    await expectRefused(
      await world.fake.deliver(bytes.toString("latin1"), {
        "content-type": "application/json",
        "x-hub-signature-256": world.fake.sign(body),
      }),
    );
    expect(rejections()[0]).toMatchObject({ name: "gateway-whatsapp", reason: "mismatch" });
  });

  it("refuses the same JSON re-serialised (signature of the original bytes)", async () => {
    const body = signedBody("reserialised");
    const again = JSON.stringify(JSON.parse(body));
    expect(JSON.parse(again)).toEqual(JSON.parse(body));
    await expectRefused(
      await world.fake.deliver(again, {
        "content-type": "application/json",
        "x-hub-signature-256": world.fake.sign(body),
      }),
    );
  });

  it("refuses a delivery without the signature header", async () => {
    await expectRefused(
      await world.fake.deliver(signedBody("unsigned"), { "content-type": "application/json" }),
    );
    expect(rejections()[0]).toMatchObject({ reason: "missing_header" });
  });

  it("refuses a delivery signed with another secret", async () => {
    const body = signedBody("wrong-secret");
    await expectRefused(
      await world.fake.deliver(body, {
        "content-type": "application/json",
        "x-hub-signature-256": world.fake.sign(body, `${SECRETS.WA_TEST_APP_SECRET}x`),
      }),
    );
    expect(rejections()).toHaveLength(1);
  });
});

describe("whatsapp subscription handshake", () => {
  let world: WhatsappWorld;
  let rig: SessionRig;
  beforeEach(async () => {
    world = await whatsappWorld();
    rig = await startSessionRig(world.build());
  });
  afterEach(async () => {
    await rig.stop();
    await world.close();
  });

  it("echoes hub.challenge as plain text for mode subscribe and the right verify token", async () => {
    const answer = await world.fake.handshake("1158201444");
    expect(answer).toMatchObject({ status: 200, body: "1158201444" });
    expect(answer.contentType).toMatch(/^text\/plain/);
  });

  it("answers 403 to a wrong verify token, another mode, or no token", async () => {
    expect((await world.fake.handshake("1", `${SECRETS.WA_TEST_VERIFY_TOKEN}!`)).status).toBe(403);
    expect((await world.fake.handshake("1", SECRETS.WA_TEST_VERIFY_TOKEN, "unsubscribe")).status).toBe(403);
    const answer = await world.fake.handshake("1", "");
    expect(answer.status).toBe(403);
    expect(answer.body).toBe("");
  });
});
