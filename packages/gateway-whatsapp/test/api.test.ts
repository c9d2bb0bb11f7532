// The Graph messages call's failures, classified with WhatsApp's own codes first: 190 (token
// expired or revoked) is a credentials failure naming the variable; throughput codes wait and retry.
import { classifyFailure, isGatewaySendError } from "@agentsvc/adapter-kit";
import { FakeWhatsApp, type FakeServer, listenLocal } from "@agentsvc/testkit";
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { graphRule, postMessage } from "../src/api.js";

let fake: FakeWhatsApp | undefined;
let server: FakeServer | undefined;
afterEach(async () => {
  await fake?.close();
  await server?.close();
  server = undefined;
});

const targetAt = (apiBaseUrl: string) => ({
  apiBaseUrl,
  apiVersion: "v21.0",
  phoneNumberId: "1065",
  accessToken: "token",
  accessTokenEnvVar: "WA_ACCESS_TOKEN",
});
const hi = { to: "15550001111", type: "text", text: { body: "hi" } };

/** A stand-in for graph.facebook.com on 127.0.0.1 answering with `answer`; what it was asked is kept. */
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

describe("graph failures", () => {
  it("a token Graph rejects (code 190) is a credentials failure naming the variable", async () => {
    fake = await FakeWhatsApp.start({ appSecret: "s", accessToken: "good-token", phoneNumberId: "1065" });
    const target = {
      apiBaseUrl: fake.url,
      apiVersion: "v21.0",
      phoneNumberId: "1065",
      accessToken: "revoked-token",
      accessTokenEnvVar: "WA_ACCESS_TOKEN",
    };
    const err = await postMessage(target, { to: "15550001111", type: "text", text: { body: "hi" } }).catch(
      (e: unknown) => e,
    );
    expect(isGatewaySendError(err)).toBe(true);
    expect(err).toMatchObject({ credentials: true, permanent: false, envVar: "WA_ACCESS_TOKEN" });
    expect(String((err as Error).message)).toMatch(/WA_ACCESS_TOKEN.*code 190/);
  });

  it("posts JSON to the number's messages route, with or without a trailing slash on the base URL", async () => {
    // https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages
    let answer = JSON.stringify({ messages: [{ id: "wamid.sent1" }] });
    const api = await standIn((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(answer);
    });
    for (const base of [api.url, `${api.url}/`])
      expect(await postMessage(targetAt(base), hi)).toBe("wamid.sent1");
    for (const asked of api.seen) {
      expect(asked.url).toBe("/v21.0/1065/messages");
      expect(asked.contentType).toBe("application/json");
      expect(JSON.parse(asked.body)).toEqual({
        messaging_product: "whatsapp",
        recipient_type: "individual",
        ...hi,
      });
    }
    // A 200 without message ids is a send without an id, not a crash.
    for (answer of ["{}", JSON.stringify({ messages: [] }), "<html>ok</html>"])
      expect(await postMessage(targetAt(api.url), hi)).toBeUndefined();
  });

  it("an unreachable Graph API is a network failure to retry, carrying its cause", async () => {
    const api = await standIn(() => {});
    await server?.close();
    server = undefined;
    const err = await postMessage(targetAt(api.url), hi).catch((e: unknown) => e);
    expect(isGatewaySendError(err)).toBe(true);
    expect(err).toMatchObject({ permanent: false, credentials: false });
    expect((err as Error).message).toMatch(/^whatsapp: messages call failed \(network\)/);
    expect((err as Error).cause).toBeDefined();
  });

  it("a stop aborts a call in flight: the abort, not a failure to retry", async () => {
    const api = await standIn(() => {}); // never answers
    const abort = new AbortController();
    const call = postMessage(targetAt(api.url), hi, abort.signal).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    abort.abort();
    const err = await call;
    expect(isGatewaySendError(err)).toBe(false);
    expect((err as Error).name).toBe("AbortError");
  });

  it("names Graph's error message when it gives one, else the start of the page a proxy answered", async () => {
    let reply: [number, string] = [400, ""];
    const api = await standIn((_req, res) => {
      res.writeHead(reply[0]);
      res.end(reply[1]);
    });
    reply = [400, JSON.stringify({ error: { code: 131026, message: "Message Undeliverable." } })];
    const bad = await postMessage(targetAt(api.url), hi).catch((e: unknown) => e);
    expect(bad).toMatchObject({ permanent: true });
    expect((bad as Error).message).toContain("Message Undeliverable.");
    for (const page of [`<html>Bad gateway${"!".repeat(400)}</html>`, "{}"]) {
      reply = [502, page];
      const err = await postMessage(targetAt(api.url), hi).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 502, permanent: false });
      expect((err as Error).message).toContain(`(${page.slice(0, 20)}`);
    }
  });

  it("code 190 is credentials whatever the status; throughput codes retry after a second", () => {
    expect(classifyFailure({ status: 400, code: 190 }, graphRule)).toEqual({ kind: "credentials" });
    for (const code of [130429, 131056, 80007, 4])
      expect(classifyFailure({ status: 400, code }, graphRule)).toEqual({
        kind: "retry",
        retryAfterMs: 1_000,
      });
    expect(classifyFailure({ status: 400, code: 131026 }, graphRule)).toEqual({ kind: "permanent" });
  });
});
