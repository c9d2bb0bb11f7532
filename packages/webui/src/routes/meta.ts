import type { Memory } from "@agentsvc/agent-core";
import { Hono } from "hono";
import { conversationIdOf, queryObject } from "../fields.js";
import type { AgentInfo, HonoEnv } from "../types.js";

export interface MetaRouteDeps {
  agent: AgentInfo;
  memory: Memory;
  signInEnabled: boolean;
  apiKeyRequired: boolean;
}

/** `/health` (answered before the sign-in gate), `/info`, `/tools`. */
export function healthRoute(): Hono<HonoEnv> {
  return new Hono<HonoEnv>().get("/health", (c) => c.json({ success: true, status: "ok" }));
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
