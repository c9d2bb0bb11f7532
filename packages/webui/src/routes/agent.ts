import type { RunManagerApi } from "@agentsvc/agent-core";
import type { ChatDb } from "@agentsvc/chat-store";
import { Hono } from "hono";
import type { HonoEnv } from "../types.js";

export function agentTurnRoutes(_deps: { runs: RunManagerApi; db: ChatDb }): Hono<HonoEnv> {
  return new Hono<HonoEnv>();
}
