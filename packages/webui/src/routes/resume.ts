import type { RunManagerApi } from "@agentsvc/agent-core";
import { Hono } from "hono";
import type { HonoEnv } from "../types.js";

export function resumeRoute(_runs: RunManagerApi): Hono<HonoEnv> {
  return new Hono<HonoEnv>();
}
