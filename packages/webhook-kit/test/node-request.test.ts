// rawRequest: under @hono/node-server (Node's request in the context's env) a webhook's headers and
// body come straight from Node's request, over real HTTP here; the fetch Request is used only when
// there is no Node request or something already started reading it.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { rawRequest } from "../src/index.js";

/** A fetch Request whose headers and body must not be touched. */
const untouchable = new Proxy({} as Request, {
  get(_, key) {
    throw new Error(`the fetch Request's ${String(key)} was read`);
  },
});

/** One request over real HTTP; `handle` gets Node's request and answers with a JSON value. */
async function served(
  handle: (req: IncomingMessage) => Promise<unknown>,
  send: { headers: [string, string][]; body: string },
): Promise<unknown> {
  const server = createServer((req, res) => {
    handle(req).then(
      (value) => res.end(JSON.stringify(value)),
      (err: Error) => res.writeHead(500).end(err.message),
    );
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  try {
    const { port } = server.address() as AddressInfo;
    const headers = new Headers();
    for (const [k, v] of send.headers) headers.append(k, v);
    const answer = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", headers, body: send.body });
    const text = await answer.text();
    if (answer.status !== 200) throw new Error(text);
    return JSON.parse(text);
  } finally {
    server.close();
  }
}

describe("rawRequest", () => {
  it("reads headers (names lower-cased, a repeated one joined) and the exact body from Node's request, not the fetch one", async () => {
    const seen = await served(
      async (req) => {
        const raw = rawRequest({ incoming: req }, untouchable);
        const body = await raw.body(1024);
        return {
          sig: raw.headers["x-sig"],
          tag: raw.headers["x-tag"],
          body: body.ok ? Buffer.from(body.bytes).toString("utf8") : body.reason,
        };
      },
      {
        headers: [
          ["X-Sig", "v1=ab"],
          ["x-tag", "a"],
          ["X-Tag", "b"],
        ],
        body: '{"héllo":1}',
      },
    );
    expect(seen).toEqual({ sig: "v1=ab", tag: "a, b", body: '{"héllo":1}' });
  });

  it("refuses a body past the limit from Node's request", async () => {
    const seen = await served(
      async (req) => {
        const body = await rawRequest({ incoming: req }, untouchable).body(4);
        req.resume();
        return body;
      },
      { headers: [], body: "12345" },
    );
    expect(seen).toEqual({ ok: false, reason: "too_large" });
  });

  it("uses the fetch Request when Node's request was already being read, or there is none", async () => {
    const request = new Request("http://x/", { method: "POST", headers: { "X-A": "1" }, body: "abc" });
    const seen = await served(
      async (req) => {
        req.on("data", () => {}); // something started reading it
        const raw = rawRequest({ incoming: req }, request);
        const body = await raw.body(10);
        return { a: raw.headers["x-a"], body: body.ok && Buffer.from(body.bytes).toString() };
      },
      { headers: [], body: "node" },
    );
    expect(seen).toEqual({ a: "1", body: "abc" });
    const alone = rawRequest(undefined, new Request("http://x/", { method: "POST", body: "xyz" }));
    const body = await alone.body(10);
    expect(body.ok && Buffer.from(body.bytes).toString()).toBe("xyz");
  });

  it("refuses a Content-Length over the limit on the fetch path before reading the body, as on Node's", async () => {
    // The body is shorter than declared: only the declared length can refuse it.
    const request = new Request("http://x/", {
      method: "POST",
      headers: { "content-length": "99" },
      body: "abc",
    });
    expect(await rawRequest(undefined, request).body(10)).toEqual({ ok: false, reason: "too_large" });
    const within = new Request("http://x/", {
      method: "POST",
      headers: { "content-length": "3" },
      body: "abc",
    });
    expect((await rawRequest(undefined, within).body(10)).ok).toBe(true);
  });
});
