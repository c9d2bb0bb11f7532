// PlatformApi against a real HTTP server on 127.0.0.1: the base URL and bearer token on every call,
// `call` failing with the facts, `send` with the outbox's error naming the variable.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewaySendError, PlatformApi, PlatformCallError, joinThread, splitThread } from "../src/index.js";

let server: Server;
let api: PlatformApi;
const seen: { url: string; auth: string; method: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({
        url: req.url ?? "",
        auth: req.headers.authorization ?? "",
        method: req.method ?? "",
        body,
      });
      if (req.url === "/api/v4/limited") {
        res.writeHead(429, { "retry-after": "2", "content-type": "application/json" });
        return res.end(JSON.stringify({ id: "rate", message: "slow down" }));
      }
      if (req.url === "/api/v4/refused") {
        res.writeHead(401, { "content-type": "application/json" });
        return res.end(JSON.stringify({ id: "api.context.session_expired.app_error" }));
      }
      res.writeHead(201, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: "p1" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  api = new PlatformApi({
    platform: "test",
    timeoutMs: 5_000,
    baseUrl: `http://127.0.0.1:${port}/api/v4/`,
    token: "tok",
    envVar: "TEST_TOKEN",
  });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("PlatformApi", () => {
  it("sends the bearer token to the path under the base URL, JSON in and out", async () => {
    const post = await api.send<{ id: string }>("posts", "POST", "/posts", { body: { message: "hi" } });
    expect(post.id).toBe("p1");
    expect(seen.at(-1)).toEqual({
      url: "/api/v4/posts",
      auth: "Bearer tok",
      method: "POST",
      body: '{"message":"hi"}',
    });
  });

  it("call fails with the facts; send with the outbox's error (a 401 names the variable, a 429 waits)", async () => {
    const refused = await api.call("me", "GET", "/refused").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PlatformCallError);
    expect((refused as PlatformCallError).facts.status).toBe(401);
    const stopped = await api.send("me", "GET", "/refused").catch((e: unknown) => e);
    expect(stopped).toBeInstanceOf(GatewaySendError);
    expect(stopped).toMatchObject({ credentials: true, envVar: "TEST_TOKEN" });
    const limited = await api.send("posts", "POST", "/limited", { body: {} }).catch((e: unknown) => e);
    expect(limited).toMatchObject({ permanent: false, retryAfterMs: 2_000 });
  });
});

describe("joinThread / splitThread", () => {
  it("a container alone or with its root round-trips", () => {
    expect(splitThread(joinThread("!room:example.org"))).toEqual({ container: "!room:example.org" });
    expect(splitThread(joinThread("chan", "root1"))).toEqual({ container: "chan", root: "root1" });
  });
});
