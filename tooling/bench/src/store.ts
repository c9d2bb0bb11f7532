// Store figures: listing 10,000 conversations of one user, and the cost of persisting one turn,
// each beside the same work done with a bare better-sqlite3 statement on the same file.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import Database from "better-sqlite3";
import { fmt, percentile, type Row, timeEach } from "./stats.ts";

const ROWS = 10_000;
const SAMPLES = 200;
const PAGE = 200;

export async function benchStore(): Promise<Row[]> {
  const root = mkdtempSync(join(tmpdir(), "agentsvc-bench-store-"));
  const db = ChatDb.open({ appRoot: root, path: "./chat.db" });
  // Seed in one transaction through a second connection: 10,000 fsynced API writes would take minutes.
  const raw = new Database(db.file);
  const insert = raw.prepare(
    "INSERT INTO conversations (conversation_id, user_id, title, message_count, created_at, updated_at) VALUES (?, ?, ?, 2, ?, ?)",
  );
  raw.transaction(() => {
    for (let i = 0; i < ROWS * 2; i++) insert.run(`c${i}`, i % 2 ? "u" : "noise", `Conversation ${i}`, i, i);
  })();

  const bareList = raw.prepare(
    "SELECT conversation_id, title, updated_at, message_count FROM conversations WHERE user_id = ? ORDER BY updated_at DESC, rowid DESC LIMIT ?",
  );
  for (let i = 0; i < 20; i++) {
    await db.conversations.page("u", { limit: PAGE });
    bareList.all("u", PAGE + 1);
  }
  // What GET /conversations does: one page (default 200, one extra row tells hasMore).
  const pageMs = percentile(
    await timeEach(SAMPLES, async () => {
      await db.conversations.page("u", { limit: PAGE });
    }),
    50,
  );
  // A page near the end (keyset: the cursor seeks, nothing before it is read).
  let cursor: string | undefined;
  for (let read = 0; read < ROWS - 2 * PAGE; read += PAGE)
    cursor = (await db.conversations.page("u", { limit: PAGE, ...(cursor ? { cursor } : {}) })).nextCursor;
  const deepCursor = cursor as string;
  const deepMs = percentile(
    await timeEach(SAMPLES, async () => {
      await db.conversations.page("u", { limit: PAGE, cursor: deepCursor });
    }),
    50,
  );
  const barePageMs = percentile(await timeEach(SAMPLES, () => void bareList.all("u", PAGE + 1)), 50);
  const allMs = percentile(
    await timeEach(50, async () => {
      await db.conversations.list("u");
    }),
    50,
  );
  const bareAllMs = percentile(await timeEach(50, () => void bareList.all("u", ROWS * 2)), 50);

  // One turn: the user's and the assistant's message into memory, then the conversation index.
  const memory = db.createMemory({ canSummarize: false });
  const turn = (i: number): Message[] => [
    { role: "user", content: `question ${i}` },
    { role: "assistant", content: `answer ${i} `.repeat(20) },
  ];
  const turnMs = percentile(
    await timeEach(SAMPLES, async (i) => {
      await memory.append({ userId: "u", conversationId: "persist" }, turn(i));
      await db.conversations.recordTurn({
        userId: "u",
        conversationId: "persist",
        userMessage: `question ${i}`,
      });
    }),
    50,
  );
  raw.pragma("synchronous = FULL");
  const bareInsert = raw.prepare(
    "INSERT INTO preferences (user_id, pref_key, value, updated_at) VALUES (?, ?, ?, 0)",
  );
  const bareTurnMs = percentile(
    await timeEach(SAMPLES, (i) => void bareInsert.run("bench", `k${i}`, JSON.stringify(turn(i)))),
    50,
  );
  raw.close();
  db.close();
  return [
    {
      metric: `conversations list page (${PAGE} of ${ROWS}) p50 ms`,
      value: fmt(pageMs, 3),
      baseline: fmt(barePageMs, 3),
      ratio: `${fmt(pageMs / barePageMs)}x`,
      target: "<= 5 ms",
    },
    {
      metric: `conversations list, a page ${ROWS - 2 * PAGE} rows deep (cursor), p50 ms`,
      value: fmt(deepMs, 3),
      baseline: `first page ${fmt(pageMs, 3)}`,
      ratio: `${fmt(deepMs / pageMs)}x`,
      target: "~1x (keyset)",
    },
    {
      metric: `conversations list, all ${ROWS} rows, p50 ms`,
      value: fmt(allMs, 3),
      baseline: fmt(bareAllMs, 3),
      ratio: `${fmt(allMs / bareAllMs)}x`,
      target: "",
    },
    {
      metric: "persist one turn (memory + index) p50 ms",
      value: fmt(turnMs, 3),
      baseline: fmt(bareTurnMs, 3),
      ratio: `${fmt(turnMs / bareTurnMs)}x`,
      target: "",
    },
  ];
}
