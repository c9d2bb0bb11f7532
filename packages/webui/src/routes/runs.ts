import { type Context, Hono } from "hono";
import type { RunManagerApi } from "@agentsvc/agent-core";
import { readJsonObject } from "../body.js";
import { idField, optionalString, queryObject, requiredString } from "../fields.js";
import { ScopedRuns } from "../thread-scope.js";
import type { HonoEnv } from "../types.js";

/**
 * `/cancel`, `/steer`, `/pending`: addressed by the caller's own threadIds (thread-scope.ts), so a
 * stranger's id is simply an unknown one of the caller's (false / null) and cannot be probed.
 */
export function runControlRoutes(runs: RunManagerApi): Hono<HonoEnv> {
  const app = new Hono<HonoEnv>();
  const scopedFor = (c: Context<HonoEnv>) => new ScopedRuns(runs, { userId: c.get("identity").userId });

  app.post("/cancel", async (c) => {
    const where = "POST /cancel";
    const body = await readJsonObject(c);
    const threadId = idField(where, body, "threadId", true);
    const reason = optionalString(where, body, "reason", { max: 2000 });
    const cancelled = await scopedFor(c).cancelAnywhere(threadId, reason);
    return c.json({ success: true, cancelled });
  });

  app.post("/steer", async (c) => {
    const where = "POST /steer";
    const body = await readJsonObject(c);
    const threadId = idField(where, body, "threadId", true);
    const input = requiredString(where, body, "input", { nonBlank: true });
    const steered = await scopedFor(c).steerAnywhere(threadId, input);
    return c.json({ success: true, steered });
  });

  app.get("/pending", async (c) => {
    const threadId = idField("GET /pending", queryObject(c.req.query()), "threadId", true);
    const pending = await scopedFor(c).pending(threadId);
    return c.json({
      success: true,
      pending: pending
        ? {
            threadId: pending.threadId,
            toolCallId: pending.toolCallId,
            toolName: pending.toolName,
            arguments: pending.arguments,
            allowedDecisions: pending.allowedDecisions,
            createdAt: pending.createdAt,
          }
        : null,
    });
  });

  return app;
}
