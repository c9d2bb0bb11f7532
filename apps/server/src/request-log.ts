import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { escapeControls } from "./log-escape.js";

/**
 * One info line per request: `POST /agent/invoke 200 3.1 ms`, with `req`, `res` and
 * `responseTime` fields for JSON consumers. The path is logged without its query string (it may
 * carry tokens) and with control characters escaped (log forging). For a stream the time is to the response head, not to the stream's end.
 */
export function requestLog(logger: Logger): MiddlewareHandler {
  const logged: MiddlewareHandler = async (c, next) => {
    const started = performance.now();
    await next();
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const { method } = c.req;
    // The decoded path is the caller's text: a `%0a` in it must not start a second log line.
    const path = escapeControls(c.req.path);
    const status = c.res.status;
    logger.info(
      { req: { method, path }, res: { status }, responseTime: ms },
      `${method} ${path} ${status} ${ms} ms`,
    );
  };
  // Not an async function: with info off (a service at warn, the benches) a request pays the level
  // check alone, not a promise of its own resolved with next()'s (two more microtasks a request).
  return (c, next) => (logger.isLevelEnabled("info") ? logged(c, next) : next());
}
