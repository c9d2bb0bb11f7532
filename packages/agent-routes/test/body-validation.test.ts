// What a client is told about a body the agent route refuses (status, code and the message that
// names the field and what it got), and the boundaries of the fields it accepts.
import { defineAgent, RunManager } from "@agentsvc/agent-core";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { agentRoutes } from "../src/index.js";
import { listen } from "./helpers.js";

const MiB = 1024 * 1024;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function routes() {
  const runs = new RunManager({ agent: defineAgent({ name: "h", model: { provider: "demo" } }) });
  const app = new Hono();
  app.route("/agent", agentRoutes({ runs }));
  return app;
}

async function base(): Promise<string> {
  const server = await listen(routes());
  closers.push(server.close);
  return `${server.url}/agent`;
}

const post = (url: string, body: string, type = "application/json") =>
  fetch(url, { method: "POST", headers: { "content-type": type }, body });

async function refusal(response: Response) {
  return {
    status: response.status,
    ...((await response.json()) as { error: { code: string; message: string } }).error,
  };
}

describe("a refused body is named in the answer", () => {
  it("says what the body or field was expected to be and what it got", async () => {
    const url = `${await base()}/invoke`;
    const cases: [string, string, number, string, string][] = [
      [
        "hi",
        "text/plain",
        415,
        "unsupported_media_type",
        'Content-Type: expected application/json (got "text/plain")',
      ],
      ["{", "Application/JSON; charset=utf-8", 400, "invalid_json", "body: not valid JSON ("],
      ["[1]", "application/json", 400, "invalid_body", "body: expected a JSON object (got an array)"],
      ['"x"', "application/json", 400, "invalid_body", "body: expected a JSON object (got a string)"],
      ["null", "application/json", 400, "invalid_body", "body: expected a JSON object (got null)"],
      ["5", "application/json", 400, "invalid_body", "body: expected a JSON object (got number)"],
      [
        '{"input":5}',
        "application/json",
        400,
        "invalid_body",
        "input: expected a non-empty string (got number)",
      ],
      [
        '{"input":"   "}',
        "application/json",
        400,
        "invalid_body",
        "input: expected a non-empty string (got a string)",
      ],
      [
        '{"input":"x","threadId":"a b"}',
        "application/json",
        400,
        "invalid_body",
        "threadId: expected 1-128 characters of letters, digits, _ . : - (got a string)",
      ],
      ['{"input":"x","threadId":7}', "application/json", 400, "invalid_body", "threadId: expected 1-128"],
      [
        '{"input":"x","conversationId":""}',
        "application/json",
        400,
        "invalid_body",
        "conversationId: expected a string of 1-200 characters (got a string)",
      ],
      [
        `{"input":"x","conversationId":"${"c".repeat(201)}"}`,
        "application/json",
        400,
        "invalid_body",
        "conversationId:",
      ],
      ['{"input":"x","conversationId":3}', "application/json", 400, "invalid_body", "conversationId:"],
    ];
    for (const [body, type, status, code, message] of cases) {
      const got = await refusal(await post(url, body, type));
      expect({ body, status: got.status, code: got.code }).toEqual({ body, status, code });
      expect(got.message.startsWith(message), `${body}: ${got.message}`).toBe(true);
    }
    const none = await refusal(await fetch(url, { method: "POST", body: "{}" }));
    expect(none.message).toMatch(
      /^Content-Type: expected application\/json \(got (nothing|"text\/plain")\)$/,
    );
  });

  it("names the batch's inputs: the array's bounds and the index of a bad one", async () => {
    const url = `${await base()}/batch`;
    for (const inputs of [[], Array(21).fill("x"), "x"]) {
      const got = await refusal(await post(url, JSON.stringify({ inputs })));
      expect(got).toMatchObject({ status: 400, code: "invalid_body" });
      expect(got.message).toMatch(/^inputs: expected an array of 1-20 non-empty strings/);
    }
    for (const bad of [5, "  "]) {
      const got = await refusal(await post(url, JSON.stringify({ inputs: ["fine", bad] })));
      expect(got).toMatchObject({ status: 400, code: "invalid_body" });
      expect(got.message).toMatch(/^inputs\[1\]: expected a non-empty string/);
    }
  });

  it("413 too_large names the limit and closes the connection", async () => {
    const response = await post(`${await base()}/invoke`, JSON.stringify({ input: "z".repeat(MiB) }));
    expect(response.headers.get("connection")).toBe("close");
    expect(await refusal(response)).toEqual({
      status: 413,
      code: "too_large",
      message: `body: larger than the ${MiB}-byte limit`,
    });
  });
});

describe("accepted bodies at their bounds", () => {
  it("reads a body of exactly the limit with Content-Length, and one of exactly the limit without a Node request", async () => {
    const shell = JSON.stringify({ input: 5, pad: "" });
    const exact = JSON.stringify({ input: 5, pad: "p".repeat(MiB - shell.length) });
    expect(Buffer.byteLength(exact)).toBe(MiB);
    // Refused for its content (input is a number), so it was read whole, not refused for its size.
    expect((await refusal(await post(`${await base()}/invoke`, exact))).code).toBe("invalid_body");
    const inProcess = await routes().request("/agent/invoke", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new Blob([exact]).stream(),
      duplex: "half",
    } as RequestInit);
    expect((await refusal(inProcess)).code).toBe("invalid_body");
  });

  it("takes a null threadId and conversationId as absent, a 200-character conversationId, and a batch of one", async () => {
    const url = await base();
    const invoked = await post(
      `${url}/invoke`,
      JSON.stringify({ input: "x", threadId: null, conversationId: null }),
    );
    expect(invoked.status).toBe(200);
    expect(((await invoked.json()) as { conversationId: string }).conversationId).toBe("default");
    const long = "c".repeat(200);
    const named = await post(`${url}/invoke`, JSON.stringify({ input: "x", conversationId: long }));
    expect(((await named.json()) as { conversationId: string }).conversationId).toBe(long);
    const batch = await post(`${url}/batch`, JSON.stringify({ inputs: ["only one"] }));
    expect(batch.status).toBe(200);
    expect(((await batch.json()) as { results: unknown[] }).results).toHaveLength(1);
  });
});
