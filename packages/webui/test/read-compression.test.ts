// /history and /conversations are the page's large reads: gzip-compressed for a client that
// accepts it (a phone's link), the same JSON as the plain answer a client without gzip gets.
import { type IncomingHttpHeaders, request } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** GET over node:http, so the body arrives as the bytes sent (fetch would decompress it). */
function rawGet(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (part: Buffer) => parts.push(part));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the page's large reads", () => {
  it("/history and /conversations go out gzip-compressed to a client that accepts it, plain otherwise", async () => {
    h = await startHarness();
    const input = `remember this ${"long line of text ".repeat(120)}`;
    const turn = await h.client().post("/invoke", { input, conversationId: "compressed" });
    expect(turn.status).toBe(200);
    for (const path of ["/history?conversationId=compressed", "/conversations"]) {
      const plain = await rawGet(`${h.base}${path}`);
      expect(plain.status).toBe(200);
      expect(plain.headers["content-encoding"]).toBeUndefined();
      const gz = await rawGet(`${h.base}${path}`, { "accept-encoding": "gzip, deflate, br" });
      expect({ path, encoding: gz.headers["content-encoding"] }).toEqual({ path, encoding: "gzip" });
      expect(JSON.parse(gunzipSync(gz.body).toString("utf8"))).toEqual(
        JSON.parse(plain.body.toString("utf8")),
      );
    }
  });
});
