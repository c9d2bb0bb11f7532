// A client that hangs up halfway through its body, on the Node request path (`@hono/node-server`,
// what production runs): the route's read ends with a 400 that says why, instead of waiting on a
// body that will never arrive (each such request would hold its handler, and its memory, forever).
import { connect } from "node:net";
import { defineAgent, RunManager } from "@agentsvc/agent-core";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { agentRoutes } from "../src/index.js";
import { listen } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("a body cut off by the client", () => {
  it("settles the request as 400 invalid_body 'could not be read (aborted)' and starts no turn", async () => {
    const runs = new RunManager({ agent: defineAgent({ name: "h", model: { provider: "demo" } }) });
    let started = 0;
    const start = runs.start.bind(runs);
    runs.start = (input) => {
      started += 1;
      return start(input);
    };
    const outcomes: { status: number; body: string }[] = [];
    const app = new Hono();
    // What the route answered, seen from outside it (the client is gone by then).
    app.use(async (c, next) => {
      await next();
      outcomes.push({ status: c.res.status, body: await c.res.clone().text() });
    });
    app.route("/agent", agentRoutes({ runs }));
    const server = await listen(app);
    closers.push(server.close);
    const { port } = new URL(server.url);

    const socket = connect(Number(port), "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.write(
      "POST /agent/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n" +
        '{"input":"hel',
    );
    // Hang up once the server has the first bytes (it answers nothing before the body is whole).
    await new Promise((r) => setTimeout(r, 100));
    socket.destroy();

    const deadline = Date.now() + 5_000;
    while (outcomes.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]?.status).toBe(400);
    expect(JSON.parse(outcomes[0]?.body ?? "{}")).toMatchObject({
      success: false,
      error: { code: "invalid_body", message: "body: could not be read (aborted)" },
    });
    expect(started).toBe(0);
  });
});
