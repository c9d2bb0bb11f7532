import type { AgentDescription, Memory } from "@agentsvc/agent-core";
import { type Context, Hono } from "hono";
import { apiKeyGate } from "./api-key.js";
import { DISCONNECT_GRACE_MS } from "./disconnect-cancel.js";
import { errorBody, errorResponse } from "./errors.js";
import { agentThreadScope } from "./thread-scope.js";
import {
  type AgentHandlerOptions,
  type AgentInfoBody,
  createAgentHandlers,
  type TurnContext,
} from "./handlers.js";

export interface AgentRoutesOptions extends AgentHandlerOptions {
  /** When set (the value of the entry's `apiKeyEnvVar`), every route needs `X-API-Key`. */
  apiKey?: string;
}

/** What `agentInfo` reads: a RunManager has both. */
export interface DescribedAgent {
  describe(): AgentDescription;
  readonly memory: Memory;
}

/** The standard `/info` body for a RunManager: memories = messages in the caller's conversation. */
export function agentInfo(agent: DescribedAgent, extra: { apiKey?: boolean; signIn?: boolean } = {}) {
  return async (_c: unknown, user: TurnContext): Promise<AgentInfoBody> => {
    const d = agent.describe();
    return {
      agentName: d.agentName,
      modelName: d.modelName,
      demoModel: d.demoModel,
      counts: { memories: await agent.memory.count(user), tools: d.tools.length },
      capabilities: {
        compact: d.canSummarize,
        // The agent route has no steer or cancel route (exactly four sub-routes); hanging up
        // `/stream` cancels the run (see `disconnectGraceMs`).
        steer: false,
        cancel: false,
        cancelOnDisconnect: true,
        approvals: d.tools.some((t) => t.needsApproval),
        signIn: extra.signIn ?? false,
        apiKey: extra.apiKey ?? false,
      },
    };
  };
}

/**
 * The standard agent route as a Hono sub-app: mount it with `app.route(path, agentRoutes(...))`.
 * Only `POST /invoke`, `POST /stream`, `POST /batch` and `GET /info` answer; everything else,
 * including the bare path, is a JSON 404. Its threads live in their own namespace per user
 * (`agentThreadScope`), so a caller cannot name a gateway's or the chat page's thread.
 */
export function agentRoutes(options: AgentRoutesOptions): Hono {
  const app = new Hono();
  const handlers = createAgentHandlers({
    threadScope: agentThreadScope,
    disconnectGraceMs: DISCONNECT_GRACE_MS,
    ...options,
  });
  // `""` is a configured key whose variable is empty: the gate refuses it rather than leave the route open.
  if (options.apiKey !== undefined) app.use("*", apiKeyGate(options.apiKey));
  app.post("/invoke", handlers.invoke);
  app.post("/stream", handlers.stream);
  app.post("/batch", handlers.batch);
  app.get("/info", handlers.info);
  // A catch-all rather than notFound: a mounted sub-app's notFound is not consulted by the parent.
  const notFound = (c: Context) =>
    c.json(errorBody("not_found", `no route ${c.req.method} ${new URL(c.req.url).pathname}`), 404);
  app.all("*", notFound);
  // Stryker disable next-line CallExpression: app.all("*") answers every path first; kept for a handler calling c.notFound()
  app.notFound(notFound);
  // Stryker disable next-line ArrowFunction,CallExpression: every handler answers its own errors (guard) and the gate cannot throw; a net for a route added later
  app.onError((error, c) => errorResponse(c, error));
  return app;
}
