// What a client is told about a body the agent route refuses (status, code and the message that
// names the field and what it got), and the boundaries of the fields it accepts.
import { connect } from "node:net";
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

  it("takes a batch of exactly 20 inputs and a Content-Type with spaces around its parameters", async () => {
    const url = await base();
    const twenty = await post(
      `${url}/batch`,
      JSON.stringify({ inputs: Array.from({ length: 20 }, (_, i) => `n${i}`) }),
    );
    expect(twenty.status).toBe(200);
    expect(((await twenty.json()) as { results: unknown[] }).results).toHaveLength(20);
    const spaced = await post(
      `${url}/invoke`,
      JSON.stringify({ input: "x" }),
      " application/json ; charset=utf-8",
    );
    expect(spaced.status).toBe(200);
  });

  it("names the batch input that is over the per-message limit", async () => {
    const got = await refusal(
      await post(`${await base()}/batch`, JSON.stringify({ inputs: ["fine", "m".repeat(200_001)] })),
    );
    expect(got).toMatchObject({ status: 413, code: "message_too_large" });
    expect(got.message).toMatch(/^inputs\[1\]: 200001 characters/);
  });

  it("refuses a declared Content-Length over the limit before the body arrives", async () => {
    const { port } = new URL(await base());
    // Only the headers are sent: the answer must not wait for the 2 MiB that never come.
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(
          `POST /agent/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${2 * MiB}\r\n\r\n{"input":`,
        );
      });
      let got = "";
      socket.on("data", (d) => {
        got += d;
        if (got.includes("\r\n\r\n")) {
          socket.destroy();
          resolve(got);
        }
      });
      socket.on("error", reject);
    });
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
  });
});
