import type { Memory, RunStore } from "@agentsvc/agent-core";
import type { ChatDb } from "@agentsvc/chat-store";
import { Hono } from "hono";
import { readJsonObject } from "../body.js";
import { badInput, fail } from "../errors.js";
import { idField, normalizeTitle, optionalString, requiredString } from "../fields.js";
import type { HonoEnv } from "../types.js";
import { refuseWhileApprovalPending } from "./pending-guard.js";
import { compressRead } from "./read-compression.js";

const DEFAULT_LIST_LIMIT = 200;
const MAX_LIST_LIMIT = 1000;

export interface ConversationRouteDeps {
  db: ChatDb;
  memory: Memory;
  runStore: RunStore;
}

/** The conversation index: list, create, rename, delete — all within the caller's own rows. */
export function conversationRoutes(deps: ConversationRouteDeps): Hono<HonoEnv> {
  const { db } = deps;
  const app = new Hono<HonoEnv>();

  /** The caller's own row, or a 404 that looks the same whether the id is unknown or someone else's. */
  async function ownRow(userId: string, conversationId: string): Promise<boolean> {
    return (await db.conversations.get(conversationId))?.userId === userId;
  }

  // The newest `limit` conversations (default 200, at most 1000): a sidebar never needs all of a
  // heavy user's rows at once, and one page keeps the route fast however many exist. Older pages:
  // pass the previous answer's `nextCursor` as `cursor`.
  app.get("/conversations", compressRead, async (c) => {
    const raw = c.req.query("limit");
    const limit = raw === undefined ? DEFAULT_LIST_LIMIT : Number(raw);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      throw badInput(`GET /conversations: limit: expected an integer 1-${MAX_LIST_LIMIT} (got "${raw}")`);
    }
    const cursor = c.req.query("cursor");
    const page = await db.conversations.page(c.get("identity").userId, {
      limit,
      ...(cursor !== undefined ? { cursor } : {}),
    });
    return c.json({
      success: true,
      hasMore: page.nextCursor !== undefined,
      ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
      conversations: page.conversations.map((r) => ({
        conversationId: r.conversationId,
        title: r.title ?? "",
        updatedAt: r.updatedAt,
        messageCount: r.messageCount,
      })),
    });
  });

  app.post("/conversations/create", async (c) => {
    const where = "POST /conversations/create";
    const body = await readJsonObject(c);
    const raw = optionalString(where, body, "title", { max: 10_000 });
    const title = raw === undefined ? undefined : normalizeTitle(raw);
    const row = await db.conversations.create({
      userId: c.get("identity").userId,
      ...(title ? { title } : {}),
    });
    return c.json({ success: true, conversationId: row.conversationId, title: row.title ?? "" });
  });

  app.post("/conversations/rename", async (c) => {
    const where = "POST /conversations/rename";
    const body = await readJsonObject(c);
    const conversationId = idField(where, body, "conversationId", true);
    const title = normalizeTitle(requiredString(where, body, "title", { max: 10_000 }));
    if (title === "")
      return fail(c, 400, "bad_request", `${where}: title: expected visible text, got only whitespace`);
    const { userId } = c.get("identity");
    if (!(await ownRow(userId, conversationId)))
      return fail(c, 404, "not_found", `no conversation "${conversationId}"`);
    const row = await db.conversations.rename(userId, conversationId, title);
    return c.json({ success: true, conversationId, title: row.title ?? title });
  });

  app.post("/conversations/delete", async (c) => {
    const where = "POST /conversations/delete";
    const body = await readJsonObject(c);
    const conversationId = idField(where, body, "conversationId", true);
    const { userId } = c.get("identity");
    if (!(await ownRow(userId, conversationId)))
      return fail(c, 404, "not_found", `no conversation "${conversationId}"`);
    await refuseWhileApprovalPending(deps.runStore, userId, conversationId);
    // Messages first: a crash between the two leaves an empty row, never orphaned messages.
    await deps.memory.clear({ userId, conversationId });
    await db.conversations.delete(userId, conversationId);
    return c.json({ success: true, deleted: true });
  });

  return app;
}
