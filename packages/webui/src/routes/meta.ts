import { Hono } from "hono";
import type { AgentInfo, HonoEnv } from "../types.js";

export interface MetaRouteDeps {
  agent: AgentInfo;
  signInEnabled: boolean;
  apiKeyRequired: boolean;
  approvals: boolean;
}

/** `/health` (answered before the sign-in gate), `/info`, `/tools`. */
export function healthRoute(): Hono<HonoEnv> {
  return new Hono<HonoEnv>().get("/health", (c) => c.json({ success: true, status: "ok" }));
}

export function metaRoutes(deps: MetaRouteDeps): Hono<HonoEnv> {
  const { agent } = deps;
  const app = new Hono<HonoEnv>();

  app.get("/info", (c) =>
    c.json({
      success: true,
      agentName: agent.name,
      modelName: agent.modelName,
      demoModel: agent.demoModel,
      // One memory store backs the agent (the ChatDb memory); tools are the agent's registered tools.
      counts: { memories: 1, tools: agent.tools.length },
      capabilities: {
        compact: agent.canCompact,
        steer: true,
        cancel: true,
        approvals: deps.approvals,
        signIn: deps.signInEnabled,
        apiKey: deps.apiKeyRequired,
      },
    }),
  );

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
