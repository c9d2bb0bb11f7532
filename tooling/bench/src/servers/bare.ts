// The baseline: a bare Hono handler calling the same demo model in-process (no run loop,
// memory, SSE framing or checks). Runs in its own process; prints its URL on stdout.
import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createDemoModel } from "@agentsvc/agent-core";
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const model = createDemoModel({ tokenDelayMs: 0 });
const prompt = (input: string) => [
  { role: "user" as const, content: [{ type: "text" as const, text: input }] },
];
type Part = { type: string; delta?: string };

const app = new Hono();
/** The model's whole answer to one input. */
async function answer(input: string): Promise<string> {
  const { stream } = await model.doStream({ prompt: prompt(input) });
  let text = "";
  for await (const part of stream as unknown as AsyncIterable<Part>) {
    if (part.type === "text-delta") text += part.delta ?? "";
  }
  return text;
}

app.post("/invoke", async (c) => {
  const { input } = (await c.req.json()) as { input: string };
  return c.json({ success: true, output: await answer(input) });
});
// The same handler reading its body straight from the Node request, as agentsvc's routes do
// (no fetch Request or web stream): shows what the route costs beyond that shortcut.
app.post("/invoke-node", async (c) => {
  const incoming = (c.env as { incoming: IncomingMessage }).incoming;
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const { input } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { input: string };
  return c.json({ success: true, output: await answer(input) });
});
app.post("/stream", async (c) => {
  const { input } = (await c.req.json()) as { input: string };
  const { stream } = await model.doStream({ prompt: prompt(input) });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for await (const part of stream as unknown as AsyncIterable<Part>) {
        if (part.type === "text-delta") {
          controller.enqueue(encoder.encode(`event: chunk\ndata: ${JSON.stringify({ c: part.delta })}\n\n`));
        }
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
process.on("SIGTERM", () => server.close(() => process.exit(0)));
