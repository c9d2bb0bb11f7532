import { Hono } from "hono";
import type { Memory, Message, RunStore } from "@agentsvc/agent-core";
import { readJsonObject } from "../body.js";
import { badInput, typeName } from "../errors.js";
import { conversationIdOf, queryObject } from "../fields.js";
import type { ChatDb } from "@agentsvc/chat-store";
import type { HonoEnv } from "../types.js";
import { unscoped } from "../thread-scope.js";
import { refuseWhileApprovalPending } from "./pending-guard.js";
import { compressRead } from "./read-compression.js";

export interface MemoryRouteDeps {
  db: ChatDb;
  memory: Memory;
  runStore: RunStore;
  /** True only when a summary provider and model are configured. */
  canCompact: boolean;
  /** `<path>/api/files`: where a user message's files are fetched (`/history` gives each its URL). */
  filesBase: string;
  /** `media.showTranscript` of the entry: false leaves an audio file's transcript out of `/history`. */
  showTranscript: boolean;
}

/** Default number of most recent messages `/compact` keeps. */
export const DEFAULT_KEEP_RECENT = 4;

/** `/history`, `/clear`, `/compact`: always the caller's own (userId, conversationId) bucket. */
export function memoryRoutes(deps: MemoryRouteDeps): Hono<HonoEnv> {
  const { memory } = deps;
  const app = new Hono<HonoEnv>();

  app.get("/history", compressRead, async (c) => {
    const conversationId = conversationIdOf(
      "GET /history",
      queryObject(c.req.query()),
      c.get("identity").userId,
    );
    const { userId } = c.get("identity");
    // Scoped by the caller's userId, so another user's conversation id yields an empty list.
    const stored = await memory.load({ userId, conversationId });
    // A turn waiting for an approval is not in memory until it ends; its messages so far (the
    // user's message, the tool call) are part of the conversation all the same, so a reload shows
    // them above the approval card. `pending` names the waiting run for the page.
    const waiting = await deps.runStore.listByConversation(userId, conversationId);
    const messages = [...stored, ...waiting.flatMap((run) => run.turnMessages)].map((m) =>
      withFileUrls(m, deps.filesBase, deps.showTranscript),
    );
    const pending = waiting.map((run) => ({ threadId: unscoped(run.options.threadId) }));
    return c.json({ success: true, conversationId, messages, pending });
  });

  app.post("/clear", async (c) => {
    const body = await readJsonObject(c);
    const { userId } = c.get("identity");
    const conversationId = conversationIdOf("POST /clear", body, userId);
    await refuseWhileApprovalPending(deps.runStore, userId, conversationId);
    await memory.clear({ userId, conversationId });
    if ((await deps.db.conversations.get(conversationId))?.userId === userId)
      await deps.db.conversations.resetCount(userId, conversationId);
    return c.json({ success: true, cleared: true });
  });

  app.post("/compact", async (c) => {
    const where = "POST /compact";
    const body = await readJsonObject(c);
    const conversationId = conversationIdOf(where, body, c.get("identity").userId);
    const raw = body.keepRecent;
    if (
      raw !== undefined &&
      raw !== null &&
      !(typeof raw === "number" && Number.isInteger(raw) && raw >= 0)
    ) {
      throw badInput(
        `${where}: keepRecent: expected an integer >= 0, got ${typeof raw === "number" ? raw : typeName(raw)}`,
      );
    }
    const keepRecent = typeof raw === "number" ? Math.min(raw, 1_000_000) : DEFAULT_KEEP_RECENT;
    const scope = { userId: c.get("identity").userId, conversationId };
    // Summary model and provider come from configuration only; nothing else is read from the body.
    if (!deps.canCompact || !memory.canSummarize) {
      const count = await memory.count(scope);
      return c.json({ success: true, compacted: false, before: count, after: count });
    }
    const result = await memory.summarize(scope, { keepRecent });
    return c.json({ success: true, compacted: result.compacted, before: result.before, after: result.after });
  });

  return app;
}

/** A user message's stored files, each with the URL its owner fetches it from (same gates as the API). */
function withFileUrls(message: Message, base: string, showTranscript: boolean): Message {
  if (message.role !== "user" || !message.attachments?.length) return message;
  return {
    ...message,
    attachments: message.attachments.map((a) => {
      if (!("blob" in a)) return a;
      const { transcript, ...ref } = a;
      // The page shows a transcript under its audio file, unless the entry opted out as gateways do.
      return {
        ...ref,
        ...(showTranscript && transcript !== undefined ? { transcript } : {}),
        url: `${base}/${a.blob}/${encodeURIComponent(a.name ?? "file")}`,
      };
    }),
  };
}
