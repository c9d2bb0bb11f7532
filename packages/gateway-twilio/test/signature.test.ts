// X-Twilio-Signature: HMAC-SHA1 over the exact public URL and the sorted POST parameters. A forged
// or altered delivery is refused with a bare 401, logged, and dispatches nothing.
import { captureLogs, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { twilioSignature, verifyTwilioSignature } from "../src/signature.js";
import { SECRETS, type TwilioWorld, twilioWorld } from "./harness.js";

describe("the signature construction", () => {
  it("matches Twilio's published request-validation example", () => {
    // Twilio's documented example: auth token 12345, this URL and these parameters.
    const url = "https://mycompany.com/myapp.php?foo=1&bar=2";
    const params: [string, string][] = [
      ["CallSid", "CA1234567890ABCDE"],
      ["Caller", "+14158675309"],
      ["Digits", "1234"],
      ["From", "+14158675309"],
      ["To", "+18005551212"],
    ];
    expect(twilioSignature("12345", url, params)).toBe("RSOYDt4T1cUTdK1PDd93/VVr8B8=");
    expect(verifyTwilioSignature("12345", "RSOYDt4T1cUTdK1PDd93/VVr8B8=", url, params.reverse())).toEqual({
      ok: true,
    });
    expect(verifyTwilioSignature("12345", "RSOYDt4T1cUTdK1PDd93/VVr8B8=", `${url}&baz=3`, params)).toEqual({
      ok: false,
      reason: "mismatch",
    });
    expect(verifyTwilioSignature("", "RSOYDt4T1cUTdK1PDd93/VVr8B8=", url, params)).toEqual({
      ok: false,
      reason: "no_secret",
    });
    expect(verifyTwilioSignature("12345", "not base64", url, params)).toEqual({
      ok: false,
      reason: "malformed_header",
    });
  });
});

describe("twilio webhook signatures over HTTP", () => {
  let world: TwilioWorld;
  let rig: SessionRig;
  let logs: ReturnType<typeof captureLogs>;
  const from = "+15550009999";

  async function boot(options: { publicBaseUrl?: string; publicUrl?: string } = {}) {
    world = await twilioWorld(options.publicBaseUrl ? { publicBaseUrl: options.publicBaseUrl } : {});
    logs = captureLogs();
    rig = await startSessionRig(world.build(options.publicUrl ? { publicUrl: options.publicUrl } : {}), {
      logger: logs.logger,
    });
  }
  afterEach(async () => {
    await rig.stop();
    await world.close();
  });

  async function expectRefused(answer: { status: number; body: string }) {
    expect(answer.status).toBe(401);
    expect(answer.body).toBe("");
    await rig.session.idle(5_000);
    expect(await rig.userMessages(from)).toEqual([]);
    expect(world.fake.sent).toEqual([]);
    expect(
      logs
        .lines()
        .some((l) => l.msg === "webhook request refused: not verified" && l.name === "gateway-twilio"),
    ).toBe(true);
  }

  it("answers a correctly signed SMS with an empty TwiML Response and dispatches it (the control case)", async () => {
    await boot();
    const answer = await world.fake.deliverSms({ from, body: "control" });
    expect(answer).toMatchObject({ status: 200, body: "<Response></Response>" });
    expect(answer.contentType).toMatch(/^text\/xml/);
    await rig.session.idle(5_000);
    expect(await rig.userMessages(from)).toEqual(["control"]);
  });

  it("refuses a body with one byte changed after signing", async () => {
    await boot();
    const params = world.fake.smsParams({ from, body: "pay 10 dollars" });
    const signature = world.fake.sign(params);
    const body = new URLSearchParams(params).toString().replace("10", "90");
    await expectRefused(await fetchRaw(world.fake.webhookUrl, body, { "x-twilio-signature": signature }));
  });

  it("refuses a form re-serialised by a proxy that trims values", async () => {
    await boot();
    const params = world.fake.smsParams({ from, body: "  spaced out  " });
    const signature = world.fake.sign(params);
    const trimmed = params.map(([k, v]) => [k, v.trim()] as [string, string]);
    await expectRefused(
      await world.fake.deliver(trimmed, {
        "content-type": "application/x-www-form-urlencoded",
        "x-twilio-signature": signature,
      }),
    );
  });

  it("refuses a delivery without the signature header", async () => {
    await boot();
    await expectRefused(
      await world.fake.deliver(world.fake.smsParams({ from, body: "unsigned" }), {
        "content-type": "application/x-www-form-urlencoded",
      }),
    );
  });

  it("refuses a delivery signed with another auth token", async () => {
    await boot();
    const params = world.fake.smsParams({ from, body: "wrong token" });
    await expectRefused(
      await world.fake.deliver(params, {
        "content-type": "application/x-www-form-urlencoded",
        "x-twilio-signature": world.fake.sign(params, `${SECRETS.TW_TEST_AUTH_TOKEN}x`),
      }),
    );
  });

  it("behind a proxy, checks against the configured publicUrl (query included), not the local URL", async () => {
    await boot({ publicUrl: "https://bot.example.com/webhooks/twilio?tenant=7" });
    world.fake.signedUrl = "https://bot.example.com/webhooks/twilio?tenant=7";
    expect((await world.fake.deliverSms({ from, body: "via proxy" })).status).toBe(200);
    world.fake.signedUrl = "https://bot.example.com/webhooks/twilio";
    expect((await world.fake.deliverSms({ from, body: "query dropped" })).status).toBe(401);
    await rig.session.idle(5_000);
    expect(await rig.userMessages(from)).toEqual(["via proxy"]);
  });

  it("uses the server's public URL (publicBaseUrl + path + query) when no publicUrl is configured", async () => {
    await boot({ publicBaseUrl: "https://public.example.org" });
    world.fake.signedUrl = "https://public.example.org/webhooks/twilio";
    expect((await world.fake.deliverSms({ from, body: "public base" })).status).toBe(200);
    world.fake.signedUrl = undefined; // signed over the local 127.0.0.1 URL: not what Twilio would sign
    expect((await world.fake.deliverSms({ from, body: "local url" })).status).toBe(401);
    await rig.session.idle(5_000);
    expect(await rig.userMessages(from)).toEqual(["public base"]);
  });
});

function fetchRaw(url: string, body: string, headers: Record<string, string>) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body,
  }).then(async (r) => ({ status: r.status, body: await r.text() }));
}
