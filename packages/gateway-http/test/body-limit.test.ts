// The events route's body limit over real HTTP (the body is read from Node's request stream).
import { type ClientRequest, request } from "node:http";
import { rawPost } from "@agentsvc/raw-http";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpGatewayHandler, requestSignatureHeaders } from "../src/index.js";
import { type HttpRig, httpRig } from "./rig.js";

const SECRET = "limit-secret";
const PATH = "/gateways/hooks/events";
let r: HttpRig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

async function open() {
  r = await httpRig([{ name: "hooks", secretEnvVar: "HOOKS_SECRET" }], { HOOKS_SECRET: SECRET });
  return r;
}

/** A POST to the events route whose body `write` sends; the answer's status and text. */
function post(
  headers: Record<string, string>,
  write: (req: ClientRequest) => void,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${(r as HttpRig).base}${PATH}`, { method: "POST", headers });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        text += d;
      });
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, text });
        req.destroy();
      });
    });
    // The server closes the connection after a 413: writes still going out may fail then.
    req.on("error", (err) => setTimeout(() => reject(err), 1000));
    write(req);
  });
}

/** Writes `chunks` chunks of 64 KiB with backpressure, then ends. */
const chunked = (chunks: number) => (req: ClientRequest) => {
  let sent = 0;
  const pump = () => {
    while (sent < chunks) {
      sent++;
      if (!req.write(Buffer.alloc(64 * 1024, 0x61))) return void req.once("drain", pump);
    }
    req.end();
  };
  pump();
};

/**
 * A POST of `bodyBytes` to the events route (chunked, or with its Content-Length) whose answer is
 * read only after the last byte is written: a client that is slow to read.
 */
const readsAfterSending = (bodyBytes: number, framing: "chunked" | "length" = "chunked") =>
  rawPost(Number(new URL((r as HttpRig).base).port), { path: PATH, bytes: bodyBytes, framing });

describe("the events route's body limit (1 MiB)", () => {
  it("answers 413 body_too_large to a chunked body that crosses the limit, before its end", async () => {
    await open();
    // 64 MiB offered: the answer comes once the first MiB is past, not after the whole body.
    const res = await post({ "transfer-encoding": "chunked" }, chunked(1024));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text).error).toMatchObject({ code: "body_too_large" });
  });

  it("lets a client that reads its answer only after sending 7 MiB read the 413: the rest of the body is drained, not reset", async () => {
    await open();
    // 6 MiB past the limit: more than the socket buffers hold once the server stops reading, within
    // what webhook-kit drains (64 MiB, 5 s) before it cuts the connection.
    const answer = await readsAfterSending(7 * 1024 * 1024);
    expect(answer.error).toBeUndefined();
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.body).toContain('"body_too_large"');
  });

  it("lets a client that declares 7 MiB and reads its answer only after sending them read the 413: the declared body is drained too", async () => {
    await open();
    const answer = await readsAfterSending(7 * 1024 * 1024, "length");
    expect(answer.error).toBeUndefined();
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.body).toContain('"body_too_large"');
  });

  it("answers 413 to a declared Content-Length over the limit without waiting for the body", async () => {
    await open();
    const res = await post({ "content-length": `${2 * 1024 * 1024}` }, (req) => req.flushHeaders());
    expect(res.status).toBe(413);
  });

  it("records a signed event whose body arrives chunked, in two pieces", async () => {
    await open();
    const bytes = Buffer.from(JSON.stringify({ id: "c1", thread: "t", text: "hi" }));
    const signature = requestSignatureHeaders(SECRET, { method: "POST", target: PATH, body: bytes });
    const res = await post({ ...signature, "transfer-encoding": "chunked" }, (req) => {
      req.write(bytes.subarray(0, 10));
      setTimeout(() => req.end(bytes.subarray(10)), 20);
    });
    expect(res.status).toBe(202);
    expect(JSON.parse(res.text)).toMatchObject({ accepted: true });
  });
});

describe("a declared Content-Length over the limit on the fetch path (app.request, no Node request)", () => {
  const over = { "content-length": `${2 * 1024 * 1024}` };

  it("refuses a POST declaring more than the limit with 413, whatever the body's own length", async () => {
    const res = await createHttpGatewayHandler([]).request("/interactions/r1/decisions", {
      method: "POST",
      headers: over,
      body: "{}",
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
  });

  it("refuses a GET declaring more than the limit with 413 (a GET's body is never read)", async () => {
    const res = await createHttpGatewayHandler([]).request("/interactions/r1", { headers: over });
    expect(res.status).toBe(413);
  });
});
