// A header value as a caller hands it: a token read from a secret file often ends with a newline.
// fetch normalizes a value (leading and trailing tab, space, CR, LF dropped: the Fetch standard's
// "normalize", https://fetch.spec.whatwg.org/#concept-header-value-normalize) and refuses a newline
// inside; node:http refuses both with ERR_INVALID_CHAR. The transport sends what fetch sent, and a
// value it cannot send fails naming the header, never the value (often the secret itself).
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fetchForSend,
  GatewaySendError,
  HttpHeaderError,
  httpTransport,
  PlatformCallError,
  PlatformClient,
} from "../src/index.js";

let server: Server;
let base: string;
/** Each request's authorization header, as the server read it. */
const seen: (string | undefined)[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    seen.push(req.headers.authorization);
    req.resume();
    req.on("end", () => res.end('{"ok":true}'));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const client = new PlatformClient({ platform: "acme", timeoutMs: 10_000 });

describe("header values", () => {
  it("sends a value with a trailing newline or edge blanks (several leading ones too) without them, as fetch does", async () => {
    seen.length = 0;
    for (const token of ["Bearer tok\n", " \tBearer tok\r\n", "\r\n\tBearer tok"]) {
      await client.json("me", `${base}/me`, { headers: { authorization: token } });
      await (await fetch(`${base}/me`, { headers: { authorization: token } })).text();
    }
    expect(seen).toEqual(Array(6).fill("Bearer tok"));
  });

  it("refuses a newline inside a value before any connection, naming the header and not its value", async () => {
    seen.length = 0;
    const failed = await client
      .json("me", `${base}/me`, { headers: { authorization: "Bearer se\ncret" } })
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(PlatformCallError);
    const err = failed as PlatformCallError;
    expect(err.message).toMatch(/^acme me: no answer \(header "authorization" holds a character/);
    expect(err.message).not.toContain("cret");
    expect(err.cause).toBeInstanceOf(HttpHeaderError);
    expect((err.cause as HttpHeaderError).header).toBe("authorization");
    expect(seen).toHaveLength(0);
  });

  it("gives the outbox's send the same named failure", async () => {
    seen.length = 0;
    const failed = await fetchForSend(
      `${base}/send`,
      { method: "POST", headers: { "x-api-key": "k\r\nx-injected: 1" }, body: "{}" },
      { platform: "acme", call: "send" },
    ).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(GatewaySendError);
    expect((failed as Error).message).toMatch(/^acme: send failed \(network\) \(header "x-api-key" holds/);
    expect((failed as Error).message).not.toContain("injected");
    expect(seen).toHaveLength(0);
  });

  it("names a header whose name HTTP cannot carry, the others left alone", async () => {
    const failed = await httpTransport
      .request(`${base}/x`, { method: "GET", headers: { accept: "*/*", "x bad": "1" }, timeoutMs: 10_000 })
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(HttpHeaderError);
    expect((failed as HttpHeaderError).header).toBe("x bad");
    expect((failed as Error).name).toBe("HttpHeaderError");
    expect((failed as HttpHeaderError).cause).toMatchObject({ code: "ERR_INVALID_HTTP_TOKEN" });
  });

  it("hands on Node's own refusal of a request whose headers are all sendable (a method that is no token)", async () => {
    const failed = await httpTransport
      .request(`${base}/x`, { method: "GE T", headers: { accept: "*/*" }, timeoutMs: 10_000 })
      .catch((err: unknown) => err);
    expect(failed).not.toBeInstanceOf(HttpHeaderError);
    expect(failed).toMatchObject({ code: "ERR_INVALID_HTTP_TOKEN" });
  });

  it("hands a value that needs no trimming on as it is, the caller's headers untouched", async () => {
    seen.length = 0;
    const headers = { authorization: "Bearer a b", "x-trail": "v\n" };
    await (await httpTransport.request(`${base}/x`, { method: "GET", headers, timeoutMs: 10_000 })).text();
    expect(seen).toEqual(["Bearer a b"]);
    expect(headers["x-trail"]).toBe("v\n");
  });
});
