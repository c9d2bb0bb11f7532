// The DNS-rebinding guard's list: a `.example.com` entry admits that domain and its subdomains only
// at a label boundary, so a look-alike registered by anyone (`evilexample.com`) stays refused.
import { request } from "node:http";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { allowedHostsGuard, defaultAllowedHosts, hostAllowed, hostName } from "../src/index.js";
import { listen } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** GET with an explicit Host header over real HTTP (fetch would send the URL's own host). */
function getWithHost(url: string, host: string): Promise<number> {
  return getBody(url, host).then((r) => r.status);
}

function getBody(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("allowedHosts", () => {
  it("admits a .example.com entry's domain and subdomains, never a name that only ends in the same letters", () => {
    const allowed = [".example.com"];
    expect(hostAllowed("example.com", allowed)).toBe(true);
    expect(hostAllowed("chat.example.com", allowed)).toBe(true);
    expect(hostAllowed("a.b.example.com", allowed)).toBe(true);
    expect(hostAllowed("evilexample.com", allowed)).toBe(false);
    expect(hostAllowed("example.com.evil.net", allowed)).toBe(false);
    expect(hostAllowed("xample.com", allowed)).toBe(false);
  });

  it("answers 403 host_not_allowed to Host: evilexample.com over HTTP and serves Host: chat.example.com", async () => {
    const app = new Hono();
    app.use(allowedHostsGuard([".example.com"]));
    app.get("/", (c) => c.text("ok"));
    const server = await listen(app);
    closers.push(server.close);
    expect(await getWithHost(server.url, "chat.example.com:8080")).toBe(200);
    expect(await getWithHost(server.url, "evilexample.com:8080")).toBe(403);
    expect(await getWithHost(server.url, "evilexample.com")).toBe(403);
  });

  it("the default list is the loopback names plus a named bind host, never 0.0.0.0 or ::", () => {
    expect(defaultAllowedHosts()).toEqual(["localhost", "127.0.0.1", "::1"]);
    expect(defaultAllowedHosts(" Chat.Example.COM ")).toEqual([
      "localhost",
      "127.0.0.1",
      "::1",
      "chat.example.com",
    ]);
    expect(defaultAllowedHosts("[fd00::5]")).toEqual(["localhost", "127.0.0.1", "::1", "fd00::5"]);
    expect(defaultAllowedHosts("0.0.0.0")).toEqual(["localhost", "127.0.0.1", "::1"]);
    expect(defaultAllowedHosts("::")).toEqual(["localhost", "127.0.0.1", "::1"]);
    expect(defaultAllowedHosts("[::]")).toEqual(["localhost", "127.0.0.1", "::1"]);
  });

  it("reads the name of a Host header: port, brackets, case, spaces and a trailing dot removed", () => {
    expect(hostName("Chat.Example.com:8080")).toBe("chat.example.com");
    expect(hostName(" localhost ")).toBe("localhost");
    expect(hostName("example.com.")).toBe("example.com");
    expect(hostName("example.com.:443")).toBe("example.com");
    expect(hostName("[::1]:3000")).toBe("::1");
    expect(hostName("[::1]")).toBe("::1");
    expect(hostName("[fd00::5")).toBe("fd00::5");
  });

  it("matches exact names, * (the check off) and nothing else", () => {
    expect(hostAllowed("chat.example.com", ["chat.example.com"])).toBe(true);
    expect(hostAllowed("Chat.Example.com", ["chat.example.COM"])).toBe(true);
    expect(hostAllowed("other.example.com", ["chat.example.com"])).toBe(false);
    // An exact entry is not a suffix rule: neither a longer name ending in it nor it less a letter.
    expect(hostAllowed("evilchat.example.com", ["chat.example.com"])).toBe(false);
    expect(hostAllowed("hat.example.com", ["chat.example.com"])).toBe(false);
    expect(hostAllowed("anything.test", ["*"])).toBe(true);
    expect(hostAllowed("anything.test", ["example.test"])).toBe(false);
    expect(hostAllowed("example.com", [])).toBe(false);
  });

  it("over HTTP: loopback and bracketed IPv6 pass by default, a foreign name gets a JSON 403 naming it, no Host passes", async () => {
    const app = new Hono();
    app.use(allowedHostsGuard(defaultAllowedHosts("127.0.0.1")));
    app.get("/", (c) => c.text("ok"));
    const server = await listen(app);
    closers.push(server.close);
    expect(await getWithHost(server.url, "localhost:3000")).toBe(200);
    expect(await getWithHost(server.url, "[::1]:3000")).toBe(200);
    expect(await getWithHost(server.url, "127.0.0.1")).toBe(200);
    const refused = await getBody(server.url, "rebind.attacker.test:3000");
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toEqual({
      success: false,
      error: {
        code: "host_not_allowed",
        message:
          'Host "rebind.attacker.test" is not allowed; add it to allowedHosts in agentsvc.config to serve it',
      },
    });
    // Without a Host header (HTTP/1.0 tools; Node's server itself refuses HTTP/1.1 without one).
    expect((await app.request("/")).status).toBe(200);
  });
});
