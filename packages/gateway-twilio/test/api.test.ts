// The Messages call's failures, classified with Twilio's own codes first: 20003 (authenticate) is
// a credentials failure naming the Auth Token variable; 429 waits and retries; a bad number is permanent.
import { classifyFailure, isGatewaySendError } from "@agentsvc/adapter-kit";
import { FakeTwilio, type FakeServer, listenLocal } from "@agentsvc/testkit";
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createMessage, twilioRule } from "../src/api.js";

let fake: FakeTwilio | undefined;
let server: FakeServer | undefined;
afterEach(async () => {
  await fake?.close();
  await server?.close();
  server = undefined;
});

const accountSid = "AC0123456789abcdef0123456789abcdef";
const targetAt = (apiBaseUrl: string) => ({
  apiBaseUrl,
  accountSid,
  authToken: "token",
  from: "+15005550006",
  authTokenEnvVar: "TWILIO_AUTH_TOKEN",
});

/** A stand-in for api.twilio.com on 127.0.0.1 answering with `answer`; what it was asked is kept. */
async function standIn(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: { url: string; contentType: string | undefined; body: string }[] = [];
  server = await listenLocal((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({ url: req.url ?? "", contentType: req.headers["content-type"], body });
      answer(req, res);
    });
  });
  return { url: server.url, seen };
}

describe("twilio failures", () => {
  it("a rejected Auth Token (20003) is a credentials failure naming the variable", async () => {
    const accountSid = "AC0123456789abcdef0123456789abcdef";
    fake = await FakeTwilio.start({ accountSid, authToken: "right-token", number: "+15005550006" });
    const target = {
      apiBaseUrl: fake.url,
      accountSid,
      authToken: "revoked-token",
      from: "+15005550006",
      authTokenEnvVar: "TWILIO_AUTH_TOKEN",
    };
    const err = await createMessage(target, "+15550001111", "hi").catch((e: unknown) => e);
    expect(isGatewaySendError(err)).toBe(true);
    expect(err).toMatchObject({ credentials: true, permanent: false, envVar: "TWILIO_AUTH_TOKEN" });
    expect(String((err as Error).message)).toMatch(/TWILIO_AUTH_TOKEN.*code 20003/);
  });

  it("posts a form to the account's Messages resource, with or without a trailing slash on the base URL", async () => {
    // https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource
    const api = await standIn((_req, res) => {
      res.writeHead(201, { "content-type": "application/json" });
      res.end(JSON.stringify({ sid: "SM0123456789abcdef0123456789abcdef" }));
    });
    for (const base of [api.url, `${api.url}/`])
      expect(await createMessage(targetAt(base), "+15550001111", "hi")).toBe(
        "SM0123456789abcdef0123456789abcdef",
      );
    for (const asked of api.seen) {
      expect(asked.url).toBe(`/2010-04-01/Accounts/${accountSid}/Messages.json`);
      expect(asked.contentType).toBe("application/x-www-form-urlencoded");
      expect(Object.fromEntries(new URLSearchParams(asked.body))).toEqual({
        To: "+15550001111",
        Body: "hi",
        From: "+15005550006",
      });
    }
  });

  it("an unreachable API is a network failure to retry, carrying its cause", async () => {
    const api = await standIn(() => {});
    const closed = api.url;
    await server?.close();
    server = undefined;
    const err = await createMessage(targetAt(closed), "+15550001111", "hi").catch((e: unknown) => e);
    expect(isGatewaySendError(err)).toBe(true);
    expect(err).toMatchObject({ permanent: false, credentials: false });
    expect((err as Error).message).toMatch(/^twilio: Messages call failed \(network\)/);
    expect((err as Error).cause).toBeDefined();
  });

  it("a stop aborts a call in flight: the abort, not a failure to retry", async () => {
    const api = await standIn(() => {}); // never answers
    const abort = new AbortController();
    const call = createMessage(targetAt(api.url), "+15550001111", "hi", abort.signal).catch(
      (e: unknown) => e,
    );
    await new Promise((r) => setTimeout(r, 50));
    abort.abort();
    const err = await call;
    expect(isGatewaySendError(err)).toBe(false);
    expect((err as Error).name).toBe("AbortError");
  });

  it("names Twilio's message when it gives one, else the start of the page the proxy answered", async () => {
    let reply: [number, string] = [400, ""];
    const api = await standIn((_req, res) => {
      res.writeHead(reply[0]);
      res.end(reply[1]);
    });
    reply = [400, JSON.stringify({ code: 21211, message: "The 'To' number is not a valid phone number." })];
    const bad = await createMessage(targetAt(api.url), "+1", "hi").catch((e: unknown) => e);
    expect(bad).toMatchObject({ permanent: true });
    expect((bad as Error).message).toContain("The 'To' number is not a valid phone number.");
    reply = [502, `<html>Bad gateway${"!".repeat(400)}</html>`];
    const page = await createMessage(targetAt(api.url), "+15550001111", "hi").catch((e: unknown) => e);
    expect(page).toMatchObject({ status: 502, permanent: false });
    expect((page as Error).message).toContain("(<html>Bad gateway!!!");
  });

  it("20003 is credentials whatever the status; 21211 (bad number) is permanent; 429 retries", () => {
    expect(classifyFailure({ status: 400, code: 20003 }, twilioRule)).toEqual({ kind: "credentials" });
    expect(classifyFailure({ status: 400, code: 21211 }, twilioRule)).toEqual({ kind: "permanent" });
    expect(classifyFailure({ status: 429, code: 20429, retryAfter: "2" }, twilioRule)).toEqual({
      kind: "retry",
      retryAfterMs: 2_000,
    });
  });
});
