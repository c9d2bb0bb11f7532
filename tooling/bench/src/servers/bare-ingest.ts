// The durable-ingest baseline: a bare Hono handler that verifies the same v1 HMAC over the raw
// body, parses the event and inserts it with better-sqlite3 (WAL, synchronous = FULL: one fsync
// per insert) before answering 202. A repeated id answers 200, as the gateway does.
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import Database from "better-sqlite3";
import { Hono } from "hono";
import { reportLoopDelay } from "./loop-delay.ts";

const secret = process.env.BENCH_HOOKS_SECRET ?? "";
const db = new Database(join(mkdtempSync(join(tmpdir(), "agentsvc-bench-bare-ingest-")), "bare.db"));
db.pragma("journal_mode = WAL");
db.pragma(`synchronous = ${process.env.BENCH_BARE_SYNCHRONOUS ?? "FULL"}`);
db.exec(
  "CREATE TABLE events (id INTEGER PRIMARY KEY, dedup_key TEXT NOT NULL UNIQUE, thread TEXT NOT NULL, text TEXT NOT NULL, received_at INTEGER NOT NULL)",
);
const insert = db.prepare(
  "INSERT INTO events (dedup_key, thread, text, received_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
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
  const info = insert.run(event.id, event.thread, event.text, Date.now());
  return info.changes === 1
    ? c.json({ success: true, accepted: true, id: Number(info.lastInsertRowid) }, 202)
    : c.json({ success: true, duplicate: true }, 200);
});

reportLoopDelay();
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
  console.log(`http://127.0.0.1:${info.port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
