// The cold-start and idle-memory baseline: a bare @hono/node-server script answering
// POST /agent/stream with one SSE chunk. Plain JavaScript, nothing else loaded.
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const app = new Hono();
app.post("/agent/stream", () => {
  const body = 'event: chunk\ndata: {"c":"Hello"}\n\nevent: done\ndata: [DONE]\n\n';
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
});
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
  console.log(`listening http://127.0.0.1:${info.port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
