import type { DecisionKind, RunManagerApi } from "@agentsvc/agent-core";
import { streamRun } from "@agentsvc/agent-routes";
import { Hono } from "hono";
import { readJsonObject } from "../body.js";
import { badInput } from "../errors.js";
import { idField, optionalString } from "../fields.js";
import { ScopedRuns } from "../thread-scope.js";
import type { HonoEnv } from "../types.js";
import { STREAM_COALESCE_MS } from "./agent.js";

const DECISIONS: readonly DecisionKind[] = ["approve", "reject", "edit"];

/**
 * `/resume`: the owner's decision on a suspended run, answered with the continuation of the same
 * turn as SSE (the agent route's writer, so the wire format is exactly `/stream`'s). Thread ids are
 * the caller's own (thread-scope.ts): anything not pending for the caller is 403; `decidedBy` comes
 * from the caller; nothing else in the body is trusted.
 */
export function resumeRoute(runs: RunManagerApi): Hono<HonoEnv> {
  const app = new Hono<HonoEnv>();
  app.post("/resume", async (c) => {
    const where = "POST /resume";
    const body = await readJsonObject(c);
    const threadId = idField(where, body, "threadId", true);
    const decision = body.decision;
    if (typeof decision !== "string" || !DECISIONS.includes(decision as DecisionKind)) {
      throw badInput(
        `${where}: decision: expected one of approve, reject, edit, got ${JSON.stringify(decision) ?? "nothing"}`,
      );
    }
    const reason = optionalString(where, body, "reason", { max: 2000 });
    if (decision === "edit" && body.editedData === undefined) {
      throw badInput(`${where}: editedData: required when decision is edit`);
    }
    const handle = await new ScopedRuns(runs, { userId: c.get("identity").userId }).resume(threadId, {
      decision: decision as DecisionKind,
      ...(decision === "edit" ? { editedData: body.editedData } : {}),
      ...(reason !== undefined ? { reason } : {}),
    });
    return streamRun(c, handle, { coalesceMs: STREAM_COALESCE_MS });
  });
  return app;
}
