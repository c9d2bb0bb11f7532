import type { AttachmentRef, RunManagerApi } from "@agentsvc/agent-core";
import { createAgentHandlers } from "@agentsvc/agent-routes";
import type { ChatDb } from "@agentsvc/chat-store";
import { Hono } from "hono";
import type { Logger } from "pino";
import { checkId, defaultConversationId, refuseOthersDefault } from "../fields.js";
import { ScopedRuns } from "../thread-scope.js";
import type { HonoEnv } from "../types.js";
import type { UploadIndex } from "./files.js";

/**
 * The page's streams: tokens that arrive within 50 ms of the last write go out in the next one
 * (every event keeps its frame and id). The page writes a streaming reply at most every 100 ms
 * anyway; a write per token cost the browser's main thread a network task per token.
 */
export const STREAM_COALESCE_MS = 50;

export interface AgentTurnDeps {
  runs: RunManagerApi;
  db: ChatDb;
  logger: Logger;
  /** The caller's uploads: a message's `attachments` must name some of them. */
  uploads: UploadIndex;
  /** See ChatUiOptions.severalInstances. */
  severalInstances?: boolean;
}

/**
 * `/invoke`, `/stream`, `/batch`: the standard agent route's own handlers (same request shape, wire
 * format, X-Thread-Id echo and `thread` event), given the session's identity and the conversation
 * index upkeep through their hooks.
 */
export function agentTurnRoutes(deps: AgentTurnDeps): Hono<HonoEnv> {
  const { db, logger } = deps;
  // One set of handlers per caller: the runs they see are the caller's own (thread-scope.ts).
  const handlersFor = (userId: string) =>
    createAgentHandlers({
      runs: new ScopedRuns(deps.runs, { userId }).api(),
      resolveUser: () => userId,
      defaultConversation: defaultConversationId,
      severalInstances: deps.severalInstances === true,
      streamCoalesceMs: STREAM_COALESCE_MS,
      // A message's files: ids of the caller's own uploads, never anyone else's.
      attachmentsOf: async (c, body, userId) => {
        const refs = await deps.uploads.refsOf(
          `POST ${c.req.path.slice(c.req.path.lastIndexOf("/"))}`,
          userId,
          body.attachments,
        );
        c.set("attachments", refs);
        return refs;
      },
      // Ownership before the turn: another user's conversationId is 403 and its row is never touched.
      beforeTurn: async (c, turn) => {
        // The same id rule as every other route: a blank or control-character id would create a
        // conversation no other route can address (or delete).
        const where = `POST ${c.req.path.slice(c.req.path.lastIndexOf("/"))}`;
        checkId(where, "conversationId", turn.conversationId);
        refuseOthersDefault("turn", turn.conversationId, turn.userId);
        await db.conversations.assertCanUse(turn.userId, turn.conversationId);
      },
      // Index upkeep once the turn is persisted: row created on first use, title from the first user
      // message unless one exists, updatedAt moved, messageCount +2.
      afterTurn: async (c, result, turn) => {
        try {
          await db.conversations.recordTurn({
            userId: turn.userId,
            conversationId: turn.conversationId,
            // A message of files alone is titled by its first file's name.
            userMessage:
              turn.input.trim() ||
              (fileName(c.get("attachments") as AttachmentRef[] | undefined) ?? turn.input),
          });
        } catch (err) {
          // The turn itself is already persisted in memory; the index is only a display aid.
          logger.warn(
            { err, threadId: result.threadId, conversationId: turn.conversationId },
            "conversation index upkeep failed",
          );
        }
      },
    });
  const app = new Hono<HonoEnv>();
  app.post("/invoke", (c) => handlersFor(c.get("identity").userId).invoke(c));
  app.post("/stream", (c) => handlersFor(c.get("identity").userId).stream(c));
  app.post("/batch", (c) => handlersFor(c.get("identity").userId).batch(c));
  return app;
}

function fileName(refs: AttachmentRef[] | undefined): string | undefined {
  const first = refs?.[0];
  return first && "blob" in first ? first.name : undefined;
}
