// The service's root `GET /health`: up, and each gateway running or stopped with the reason (rejected
// credentials name the variable to fix). The webui's own store check stays at `<path>/api/health`.
import type { GatewaySession } from "@agentsvc/session-core";
import { Hono } from "hono";

export function healthRoute(session: Pick<GatewaySession, "status">): Hono {
  return new Hono().get("/health", (c) => c.json({ status: "ok", gateways: session.status() }));
}
