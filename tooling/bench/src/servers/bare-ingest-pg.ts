// The durable-ingest baseline on PostgreSQL: a bare Hono handler that verifies the same v1 HMAC
// over the raw body and inserts the event into BENCH_PG_URL (a pool of 10, one INSERT per event,
// committed by the server with its durability on) before answering 202.
import { createHmac, timingSafeEqual } from "node:crypto";
import { connectPostgres } from "@agentsvc/store-postgres";
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const secret = process.env.BENCH_HOOKS_SECRET ?? "";
const store = await connectPostgres({
  connectionString: process.env.BENCH_PG_URL as string,
  max: 10,
  ssl: "off",
  migrate: false,
});
await store.pool.query(
  "CREATE TABLE IF NOT EXISTS bare_events (id BIGSERIAL PRIMARY KEY, dedup_key TEXT NOT NULL UNIQUE, thread TEXT NOT NULL, text TEXT NOT NULL, received_at BIGINT NOT NULL)",
);

function verified(timestamp: string | undefined, signature: string | undefined, body: Uint8Array): boolean {
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest();
  const given = Buffer.from(/^v1=([0-9a-f]{64})$/i.exec(signature)?.[1] ?? "", "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const app = new Hono();
app.post("/gateways/:name/events", async (c) => {
  const body = new Uint8Array(await c.req.arrayBuffer());
  if (!verified(c.req.header("x-agentsvc-timestamp"), c.req.header("x-agentsvc-signature"), body))
    return c.json({ success: false }, 401);
  const event = JSON.parse(Buffer.from(body).toString("utf8")) as {
    id: string;
    thread: string;
    text: string;
  };
  const result = await store.pool.query(
    "INSERT INTO bare_events (dedup_key, thread, text, received_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING id",
    [event.id, event.thread, event.text, Date.now()],
  );
  return result.rowCount === 1
    ? c.json({ success: true, accepted: true, id: Number(result.rows[0].id) }, 202)
    : c.json({ success: true, duplicate: true }, 200);
});

const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
  console.log(`http://127.0.0.1:${info.port}`);
});
process.on("SIGTERM", () => server.close(() => store.close().then(() => process.exit(0))));
