// The streams baseline: a bare Hono SSE handler streaming the same demo model's tokens (one per
// second, the same 20-token script) as `event: chunk` lines, without runs, memory or envelopes.
import type { AddressInfo } from "node:net";
import { createDemoModel } from "@agentsvc/agent-core";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { TOKENS } from "../../project-streams/agents/slow.mjs";

const model = createDemoModel({ tokenDelayMs: 1000, script: [{ text: TOKENS }] });
type Part = { type: string; delta?: string };
const encoder = new TextEncoder();

const app = new Hono();
app.post("/agent/stream", async (c) => {
  const { input } = (await c.req.json()) as { input: string };
  const { stream } = await model.doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: input }] }],
  });
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for await (const part of stream as unknown as AsyncIterable<Part>) {
        if (part.type === "text-delta")
          controller.enqueue(encoder.encode(`event: chunk\ndata: ${JSON.stringify({ c: part.delta })}\n\n`));
      }
      controller.enqueue(encoder.encode("event: done\ndata: [DONE]\n\n"));
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
});

const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => {
  console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => {
  (server as import("node:http").Server).closeAllConnections();
  server.close(() => process.exit(0));
});
