import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../src/index.js";
import { startHello } from "./hello-server.js";

let server: RunningServer;
beforeAll(async () => {
  server = await startHello();
});
afterAll(async () => {
  await server?.shutdown();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

async function sse(res: Response): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  const decoder = new TextDecoder();
  for await (const part of res.body as unknown as AsyncIterable<Uint8Array>)
    parser.feed(decoder.decode(part));
  return events;
}

describe("the hello example served by createServer", () => {
  it("answers /agent/invoke with a demo-model turn and echoes X-Thread-Id", async () => {
    const res = await post("/agent/invoke", { input: "hello there", threadId: "t-invoke-1" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-thread-id")).toBe("t-invoke-1");
    const body = (await res.json()) as { success: boolean; status: string; output: string };
    expect(body.success).toBe(true);
    expect(body.status).toBe("completed");
    expect(body.output).toContain("hello there");
  });

  it("streams /agent/stream as thread, chunk envelopes and done, in that order", async () => {
    const res = await post("/agent/stream", { input: "stream please" }, { accept: "text/event-stream" });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = await sse(res);
    expect(events[0]?.event).toBe("thread");
    expect(events.at(-1)).toMatchObject({ event: "done" });
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ status: "completed" });
    const chunks = events.filter((e) => e.event === "chunk").map((e) => JSON.parse(e.data));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    const text = chunks.map((c) => c.choices[0].delta.content ?? "").join("");
    expect(text).toContain("stream please");
  });

  it("runs a tool from the local tool server named in the agent's toolServers", async () => {
    const res = await post("/agent/invoke", { input: "please use add with 2" });
    const body = (await res.json()) as { output: string; toolCalls: { name: string }[] };
    expect(body.toolCalls.map((t) => t.name)).toContain("add");
    expect(body.output).toContain("sum");
  });

  it("serves the built chat page with a hash-based CSP and an ETag that revalidates", async () => {
    const res = await fetch(`${server.url}/chat/index.html`);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/script-src [^;]*'sha256-/);
    expect(csp).not.toContain("unsafe-inline");
    const html = await res.text();
    expect(html).toContain("Hello agent");
    const etag = res.headers.get("etag") ?? "";
    const again = await fetch(`${server.url}/chat/index.html`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    const redirect = await fetch(`${server.url}/chat`, { redirect: "manual" });
    expect(redirect.headers.get("location")).toBe("/chat/index.html");
  });

  it("mounts the chat API under <path>/api on the same agent", async () => {
    const health = await fetch(`${server.url}/chat/api/health`);
    expect(await health.json()).toEqual({ success: true, status: "ok", store: "ok" });
    const info = (await (await fetch(`${server.url}/chat/api/info`)).json()) as {
      modelName: string;
      demoModel: boolean;
      capabilities: { compact: boolean };
    };
    expect(info.demoModel).toBe(true);
    expect(info.modelName).toContain("demo");
    expect(info.capabilities.compact).toBe(true);
  });

  it("serves the local tool server over MCP at the mcp exposure's path", async () => {
    const client = new Client({ name: "server-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["add"]);
      const result = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
      expect(JSON.stringify(result.content)).toContain("42");
    } finally {
      await client.close();
    }
  });

  it("answers an unknown route and the bare agent path with a 404 JSON error", async () => {
    for (const path of ["/nope", "/agent"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { success: boolean }).success).toBe(false);
    }
  });
});

describe("approvals on the agent route without an approval channel", () => {
  it("never blocks the conversation: the request is rejected at once and the next turn runs", async () => {
    const first = await post("/agent/invoke", {
      input: "please use send_note to say hi",
      conversationId: "c-dead-end",
    });
    expect(first.status).toBe(200);
    // The rejection continues the run; once it has ended the conversation takes new turns.
    const deadline = Date.now() + 5_000;
    let next: Response;
    do {
      next = await post("/agent/invoke", { input: "still there?", conversationId: "c-dead-end" });
      if (next.status !== 409) break;
      await new Promise((r) => setTimeout(r, 50));
    } while (Date.now() < deadline);
    expect(next.status).toBe(200);
    const body = (await next.json()) as { text?: string; output?: string };
    expect(JSON.stringify(body)).toContain("still there?");
    // The rejected run's continuation saves its turn (with the reason as the tool result).
    const until = Date.now() + 10_000;
    let history = "";
    while (!history.includes("no approval channel could ask") && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      history = JSON.stringify(
        await server.memory.load({ userId: "anonymous", conversationId: "c-dead-end" }),
      );
    }
    expect(history).toContain("no approval channel could ask for a decision");
  });
});

describe("graceful shutdown", () => {
  it("lets a running turn finish before the server stops", async () => {
    const slow = await startHello();
    const res = await fetch(`${slow.url}/agent/stream`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ input: "a long answer ".repeat(20) }),
    });
    // Shut down once the turn is running (its first chunk read), not after a guessed delay: under
    // load a delay could close the listener before the request connected.
    const events: EventSourceMessage[] = [];
    let stopped: Promise<void> | undefined;
    const parser = createParser({
      onEvent: (e) => {
        events.push(e);
        if (e.event === "chunk") stopped ??= slow.shutdown();
      },
    });
    const decoder = new TextDecoder();
    for await (const part of res.body as unknown as AsyncIterable<Uint8Array>)
      parser.feed(decoder.decode(part));
    expect(stopped).toBeDefined();
    expect(events.at(-1)?.event).toBe("done");
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ status: "completed" });
    await stopped;
    await expect(fetch(`${slow.url}/agent/info`)).rejects.toThrow();
  });
});
