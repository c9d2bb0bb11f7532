// What a `Last-Event-ID` reconnect to POST /stream accepts and refuses (README "Reconnect"): the id
// is a non-negative integer, the thread is named, only its own user resumes it, and with several
// instances a thread this instance runs is resumed here (421 only for one it does not know).
import { defineAgent, RunManager, WindowMemory } from "@agentsvc/agent-core";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { agentRoutes, createAgentHandlers } from "../src/index.js";
import { contentOf, listen, postJson, readSse } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function newRuns() {
  const memory = new WindowMemory();
  const runs = new RunManager({ agent: defineAgent({ name: "h", model: { provider: "demo" } }), memory });
  return { runs, memory };
}

async function serveRoute(severalInstances = false) {
  const { runs, memory } = newRuns();
  const app = new Hono();
  app.route("/agent", agentRoutes({ runs, severalInstances }));
  const server = await listen(app);
  closers.push(server.close);
  return { base: `${server.url}/agent`, memory };
}

/** Streams one whole turn and answers its threadId and events (the run stays known for 60 s). */
async function finishedStream(base: string, body: Record<string, unknown>, headers = {}) {
  const response = await postJson(`${base}/stream`, body, headers);
  const events = await readSse(response);
  return { threadId: response.headers.get("x-thread-id")!, events };
}

const errorOf = async (response: Response) =>
  ((await response.json()) as { success: boolean; error: { code: string; message: string } }).error;

describe("a Last-Event-ID reconnect", () => {
  it("refuses an id that is not a non-negative integer of at most 15 digits with 400, quoting what it got", async () => {
    const { base } = await serveRoute();
    const { threadId } = await finishedStream(base, { input: "hello" });
    for (const id of ["abc", "-1", "3x", "x3", "1.5", "1234567890123456", "1 2"]) {
      const response = await postJson(`${base}/stream`, { threadId }, { "last-event-id": id });
      expect({ id, status: response.status }).toEqual({ id, status: 400 });
      expect(await errorOf(response)).toEqual({
        code: "invalid_body",
        message: `Last-Event-ID: expected a non-negative integer (got ${JSON.stringify(id)})`,
      });
    }
    // A long header is quoted by its first 40 characters only.
    const long = `z${"9".repeat(60)}`;
    const response = await postJson(`${base}/stream`, { threadId }, { "last-event-id": long });
    expect((await errorOf(response)).message).toBe(
      `Last-Event-ID: expected a non-negative integer (got ${JSON.stringify(long.slice(0, 40))})`,
    );
  });

  it("replays what follows the id, with spaces around it, and takes a 15-digit id as past the end", async () => {
    const { base } = await serveRoute();
    const { threadId, events } = await finishedStream(base, { input: "tell me something" });
    const chunks = events.filter((e) => e.event === "chunk");
    expect(chunks.length).toBeGreaterThan(3);
    const again = await readSse(await postJson(`${base}/stream`, { threadId }, { "last-event-id": " 2 " }));
    expect(again[0]).toMatchObject({ event: "thread", data: threadId, id: "2" });
    expect(again.filter((e) => e.event === "chunk").map((e) => e.id)).toEqual(
      chunks.slice(2).map((e) => e.id),
    );
    expect(contentOf(again)).toBe(contentOf(chunks.slice(2)));
    const past = await postJson(`${base}/stream`, { threadId }, { "last-event-id": "999999999999999" });
    expect(past.status).toBe(200);
    expect((await readSse(past)).map((e) => e.event)).toEqual(["thread", "done"]);
  });

  it("ignores the body's input: no new turn starts, even when the input would be refused", async () => {
    const { base, memory } = await serveRoute();
    const { threadId } = await finishedStream(base, { input: "hello", conversationId: "c" });
    for (const input of ["a new message", 42]) {
      const again = await postJson(
        `${base}/stream`,
        { threadId, input, conversationId: "c" },
        { "last-event-id": "0" },
      );
      expect(again.status).toBe(200);
      expect((await readSse(again)).at(-1)?.event).toBe("done");
    }
    expect(await memory.count({ userId: "anonymous", conversationId: "c" })).toBe(2);
  });

  it("without a threadId is 400 saying the threadId is required", async () => {
    const { base } = await serveRoute();
    const response = await postJson(`${base}/stream`, { input: "hi" }, { "last-event-id": "1" });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toEqual({
      code: "invalid_body",
      message: "threadId: required when reconnecting with Last-Event-ID",
    });
  });

  it("for an unknown thread is 404 naming the caller's threadId", async () => {
    const { base } = await serveRoute();
    const response = await postJson(`${base}/stream`, { threadId: "nope" }, { "last-event-id": "1" });
    expect(response.status).toBe(404);
    expect(await errorOf(response)).toEqual({
      code: "not_found",
      message: "no live or recently finished run under threadId nope",
    });
  });

  it("with several instances, resumes a thread this instance runs (421 is only for one it does not know)", async () => {
    const { base } = await serveRoute(true);
    const { threadId, events } = await finishedStream(base, { input: "hello" });
    const again = await postJson(`${base}/stream`, { threadId }, { "last-event-id": "1" });
    expect(again.status).toBe(200);
    const rest = await readSse(again);
    expect(rest.filter((e) => e.event === "chunk").length).toBe(
      events.filter((e) => e.event === "chunk").length - 1,
    );
    const elsewhere = await postJson(`${base}/stream`, { threadId: "other" }, { "last-event-id": "1" });
    expect(elsewhere.status).toBe(421);
    expect(await errorOf(elsewhere)).toEqual({
      code: "reconnect_same_instance",
      message:
        "no live or recently finished run under threadId other on this instance; a stream can only be " +
        "resumed on the instance that runs it (configure sticky sessions on the load balancer)",
    });
  });
});

describe("a Last-Event-ID reconnect to handlers without a thread namespace", () => {
  /** Handlers as the webui API mounts them: one namespace for all users, identity from the server side. */
  async function serveHandlers() {
    const { runs } = newRuns();
    const handlers = createAgentHandlers({
      runs,
      // Stands in for a session lookup: the test's server decides who the caller is.
      resolveUser: (c) => c.req.header("x-test-user") ?? "nobody",
    });
    const app = new Hono();
    app.post("/stream", handlers.stream);
    const server = await listen(app);
    closers.push(server.close);
    return server.url;
  }

  it("is 404 for another user's thread, even under its exact id, and 200 for its own user", async () => {
    const url = await serveHandlers();
    const { threadId } = await finishedStream(url, { input: "mine" }, { "x-test-user": "ann" });
    const other = await postJson(
      `${url}/stream`,
      { threadId },
      { "last-event-id": "0", "x-test-user": "bob" },
    );
    expect(other.status).toBe(404);
    expect((await errorOf(other)).code).toBe("not_found");
    const own = await postJson(`${url}/stream`, { threadId }, { "last-event-id": "0", "x-test-user": "ann" });
    expect(own.status).toBe(200);
    expect(contentOf(await readSse(own))).toContain("mine");
  });
});
