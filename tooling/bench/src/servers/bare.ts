// The baseline: a bare Hono handler calling the same demo model in-process (no run loop,
// memory, SSE framing or checks). Runs in its own process; prints its URL on stdout.
import { mkdtempSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDemoModel } from "@agentsvc/agent-core";
import { serve } from "@hono/node-server";
import Database from "better-sqlite3";
import { Hono } from "hono";

const model = createDemoModel({ tokenDelayMs: 0 });
type PromptMessage = { role: "user" | "assistant"; content: { type: "text"; text: string }[] };
const prompt = (input: string, history: PromptMessage[] = []): PromptMessage[] => [
  ...history,
  { role: "user", content: [{ type: "text", text: input }] },
];
type Part = { type: string; delta?: string };

const app = new Hono();
/** The model's whole answer to one input. */
async function answer(input: string, history: PromptMessage[] = []): Promise<string> {
  const { stream } = await model.doStream({ prompt: prompt(input, history) });
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
// The durable baseline: the same answer, the conversation kept the plain way in better-sqlite3
// (WAL, synchronous = FULL: one fsync per request), its last 20 messages read before the model
// runs and the turn's two messages inserted in one transaction before the answer.
const db = new Database(join(mkdtempSync(join(tmpdir(), "agentsvc-bench-bare-invoke-")), "bare.db"));
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
db.exec(
  "CREATE TABLE messages (id INTEGER PRIMARY KEY, conversation TEXT NOT NULL, role TEXT NOT NULL, body TEXT NOT NULL); CREATE INDEX messages_conversation ON messages (conversation, id)",
);
const recent = db.prepare("SELECT role, body FROM messages WHERE conversation = ? ORDER BY id DESC LIMIT 20");
const insert = db.prepare("INSERT INTO messages (conversation, role, body) VALUES (?, ?, ?)");
const keepTurn = db.transaction((conversation: string, input: string, output: string) => {
  insert.run(conversation, "user", input);
  insert.run(conversation, "assistant", output);
});
app.post("/invoke-durable", async (c) => {
  const { input, conversationId } = (await c.req.json()) as { input: string; conversationId: string };
  const rows = recent.all(conversationId) as { role: "user" | "assistant"; body: string }[];
  const history = rows
    .reverse()
    .map((r) => ({ role: r.role, content: [{ type: "text" as const, text: r.body }] }));
  const output = await answer(input, history);
  keepTurn(conversationId, input, output);
  return c.json({ success: true, output });
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
