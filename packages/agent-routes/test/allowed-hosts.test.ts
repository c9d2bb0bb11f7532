// The DNS-rebinding guard's list: a `.example.com` entry admits that domain and its subdomains only
// at a label boundary, so a look-alike registered by anyone (`evilexample.com`) stays refused.
import { request } from "node:http";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { allowedHostsGuard, hostAllowed } from "../src/index.js";
import { listen } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** GET with an explicit Host header over real HTTP (fetch would send the URL's own host). */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
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
});
