import { Hono } from "hono";
import type { RunManagerApi } from "@agentsvc/agent-core";
import { readJsonObject } from "../body.js";
import { idField, optionalString, queryObject, requiredString } from "../fields.js";
import type { HonoEnv } from "../types.js";

/**
 * `/cancel`, `/steer`, `/pending`: addressed by threadId, acting only on the caller's own runs. The
 * RunManager compares the run's checkpointed owner with the caller: a stranger's threadId behaves
 * exactly like an unknown one (false / null), so ids cannot be probed.
 */
export function runControlRoutes(runs: RunManagerApi): Hono<HonoEnv> {
  const app = new Hono<HonoEnv>();

  app.post("/cancel", async (c) => {
    const where = "POST /cancel";
    const body = await readJsonObject(c);
    const threadId = idField(where, body, "threadId", true);
    const reason = optionalString(where, body, "reason", { max: 2000 });
    const cancelled = runs.cancel(threadId, { userId: c.get("identity").userId }, reason);
    return c.json({ success: true, cancelled });
  });

  app.post("/steer", async (c) => {
    const where = "POST /steer";
    const body = await readJsonObject(c);
    const threadId = idField(where, body, "threadId", true);
    const input = requiredString(where, body, "input", { nonBlank: true });
    const steered = runs.steer(threadId, input, { userId: c.get("identity").userId });
    return c.json({ success: true, steered });
  });

  app.get("/pending", async (c) => {
    const threadId = idField("GET /pending", queryObject(c.req.query()), "threadId", true);
    const pending = await runs.pending(threadId, { userId: c.get("identity").userId });
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
