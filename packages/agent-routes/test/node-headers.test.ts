// The Host guard and the JSON body read take their headers from Node's own parse, building no fetch
// Headers for the request, and read a header sent twice as before (Headers joins the values).
import { connect } from "node:net";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { readJsonObject } from "../src/body.js";
import { allowedHostsGuard, errorResponse } from "../src/index.js";
import { listen } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/**
 * The guard, then a POST route reading its JSON body that answers with the symbols on the request
 * object @hono/node-server gave Hono: its `Headers` is kept under one described "headersKey" once built.
 */
async function server(readHeaderToo = false) {
  const app = new Hono();
  app.use("*", allowedHostsGuard(["localhost"]));
  app.post("/", async (c) => {
    try {
      const body = await readJsonObject(c);
      if (readHeaderToo) c.req.header("x-anything");
      const symbols = Object.getOwnPropertySymbols(c.req.raw).map((s) => s.description);
      return c.json({ body, headersBuilt: symbols.includes("headersKey") });
    } catch (error) {
      return errorResponse(c, error);
    }
  });
  const s = await listen(app);
  closers.push(s.close);
  return Number(new URL(s.url).port);
}

/** A raw HTTP/1.1 request (headers as given, duplicates included): status line and body. */
function raw(port: number, headers: string[], body = ""): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      const head = [
        "POST / HTTP/1.1",
        ...headers,
        `Content-Length: ${Buffer.byteLength(body)}`,
        "Connection: close",
      ];
      socket.write(`${head.join("\r\n")}\r\n\r\n${body}`);
    });
    let out = "";
    socket.on("data", (d) => (out += d.toString("utf8")));
    socket.on("end", () =>
      resolve({ status: Number(out.split(" ")[1]), body: out.slice(out.indexOf("\r\n\r\n") + 4) }),
    );
    socket.on("error", reject);
  });
}

const json = ["Host: localhost:8080", "Content-Type: application/json"];

describe("request headers from Node's parse", () => {
  it("passes the Host guard and reads the JSON body without building the request's fetch Headers", async () => {
    const port = await server();
    const answer = await raw(port, json, '{"input":"hi"}');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ body: { input: "hi" }, headersBuilt: false });
  });

  it("sees the fetch Headers built once a handler reads a header through Hono (the probe above works)", async () => {
    const port = await server(true);
    const answer = await raw(port, json, '{"input":"hi"}');
    expect(JSON.parse(answer.body)).toEqual({ body: { input: "hi" }, headersBuilt: true });
  });

  it("refuses two Host headers, an allowed one first, as it did when Headers joined them", async () => {
    const port = await server();
    const answer = await raw(
      port,
      ["Host: localhost", "Host: evil.example", "Content-Type: application/json"],
      "{}",
    );
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error.code).toBe("host_not_allowed");
  });

  it("refuses two Content-Types, application/json first, with 415 as before", async () => {
    const port = await server();
    const answer = await raw(
      port,
      ["Host: localhost", "Content-Type: application/json", "Content-Type: text/plain"],
      "{}",
    );
    expect(answer.status).toBe(415);
  });

  it("answers 413 to a Content-Length past the limit, read from Node's parse", async () => {
    const port = await server();
    const answer = await raw(
      port,
      ["Host: localhost", "Content-Type: application/json"],
      "x".repeat(1024 * 1024 + 1),
    );
    expect(answer.status).toBe(413);
  });
});
