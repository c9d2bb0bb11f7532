import type { Memory } from "@agentsvc/agent-core";
import type { StoreHealthView } from "@agentsvc/chat-store";
import { Hono } from "hono";
import { conversationIdOf, queryObject } from "../fields.js";
import type { AgentInfo, HonoEnv } from "../types.js";

export interface MetaRouteDeps {
  agent: AgentInfo;
  memory: Memory;
  signInEnabled: boolean;
  apiKeyRequired: boolean;
}

/**
 * `/health` (answered before the sign-in gate): 200 `{ success: true, status: "ok", store: "ok" }`,
 * or 503 with `Retry-After` and `store` `read-only` (another process holds the write lock) or
 * `unavailable` (not even readable). Probes never wait.
 */
export function healthRoute(health: StoreHealthView): Hono<HonoEnv> {
  return new Hono<HonoEnv>().get("/health", (c) => {
    const store = health.state();
    if (store === "ok") return c.json({ success: true, status: "ok", store });
    c.header("Retry-After", String(Math.max(1, Math.ceil(health.retryAfterMs / 1000))));
    return c.json({ success: false, status: "unavailable", store }, 503);
  });
}

export function metaRoutes(deps: MetaRouteDeps): Hono<HonoEnv> {
  const { agent } = deps;
  const app = new Hono<HonoEnv>();

  app.get("/info", async (c) => {
    const conversationId = conversationIdOf(
      "GET /info",
      queryObject(c.req.query()),
      c.get("identity").userId,
    );
    // As in the standard agent route: memories = stored messages of the caller's conversation.
    const memories = await deps.memory.count({ userId: c.get("identity").userId, conversationId });
    return c.json({
      success: true,
      agentName: agent.name,
      modelName: agent.modelName,
      demoModel: agent.demoModel,
      counts: { memories, tools: agent.tools.length },
      capabilities: {
        compact: agent.canCompact,
        steer: true,
        cancel: true,
        approvals: agent.tools.some((t) => t.needsApproval),
        signIn: deps.signInEnabled,
        apiKey: deps.apiKeyRequired,
      },
    });
  });

  app.get("/tools", (c) =>
    c.json({
      success: true,
      tools: agent.tools.map((t) => ({
        name: t.name,
        description: t.description,
        needsApproval: t.needsApproval,
        inputSchema: t.inputSchema,
      })),
    }),
  );

  return app;
}
