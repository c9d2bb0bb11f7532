// A client that hangs up halfway through its POST body, over real HTTP on 127.0.0.1 (the Node
// request path production runs): /mcp answers 400 body_unreadable and reports the cause through
// onError, with or without a session id, instead of letting the read's error escape the route.
import { connect } from "node:net";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { mcpRoute } from "../src/index.js";
import { connectClient, INIT_BODY, listen, sampleServer, sessionIdOf } from "./fixtures.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

interface Outcome {
  status: number;
  body: string;
}

/** The route behind a root app that tells when the cut request reached it and what it answered. */
async function setup() {
  const errors: Error[] = [];
  const route = mcpRoute({
    server: sampleServer().server,
    path: "/mcp",
    onError: (error) => errors.push(error),
  });
  let entered!: () => void;
  const reached = new Promise<void>((resolve) => {
    entered = resolve;
  });
  let answered!: (outcome: Outcome) => void;
  const outcome = new Promise<Outcome>((resolve) => {
    answered = resolve;
  });
  const root = new Hono();
  // Only the raw request marked x-cut: the SDK client's own requests pass untouched.
  root.use(async (c, next) => {
    if (!c.req.header("x-cut")) return next();
    entered();
    await next();
    answered({ status: c.res.status, body: await c.res.clone().text() });
  });
  root.route("/", route.app);
  const http = await listen(root);
  cleanups.push(async () => {
    await route.close();
    await http.close();
  });
  return { url: `${http.url}/mcp`, port: Number(new URL(http.url).port), errors, reached, outcome };
}

/** Sends the headers (a 1000-byte Content-Length) and 20 bytes of the body, then destroys the socket. */
async function postAndHangUp(
  port: number,
  reached: Promise<void>,
  headers: Record<string, string> = {},
): Promise<void> {
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.write(
    "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nx-cut: 1\r\nContent-Type: application/json\r\n" +
      "Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n" +
      `${extra.join("")}\r\n${JSON.stringify(INIT_BODY).slice(0, 20)}`,
  );
  // The route is reading the body once the request reached it (it answers nothing before the end).
  await reached;
  socket.destroy();
}

function errorOf(outcome: Outcome): { code: number; message: string; data?: { code: string } } {
  return (JSON.parse(outcome.body) as { error: { code: number; message: string; data?: { code: string } } })
    .error;
}

describe("a POST body cut off by the client", () => {
  it("answers an initialize cut mid-body 400 body_unreadable and reports 'aborted' through onError", async () => {
    const { port, errors, reached, outcome } = await setup();
    await postAndHangUp(port, reached);
    const answer = await outcome;
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toMatchObject({
      code: -32000,
      message: "Bad Request: the body could not be read (aborted)",
      data: { code: "body_unreadable" },
    });
    expect(errors.map((e) => e.message)).toEqual(["mcp POST /mcp: the body could not be read (aborted)"]);
  });

  it("answers a session's request cut mid-body the same way, and the session keeps serving", async () => {
    const { url, port, errors, reached, outcome } = await setup();
    const client = await connectClient(url);
    cleanups.push(() => client.close());
    await postAndHangUp(port, reached, { "mcp-session-id": sessionIdOf(client) });
    const answer = await outcome;
    expect(answer.status).toBe(400);
    expect(errorOf(answer).data).toEqual({ code: "body_unreadable" });
    expect(errors.map((e) => e.message)).toEqual(["mcp POST /mcp: the body could not be read (aborted)"]);
    const result = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(result.structuredContent).toEqual({ sum: 5 });
  });
});
