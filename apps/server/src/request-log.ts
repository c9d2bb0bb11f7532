import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";

/**
 * One info line per request: `POST /agent/invoke 200 3.1 ms`, with `req`, `res` and
 * `responseTime` fields for JSON consumers. The path is logged without its query string (it may
 * carry tokens). For a stream the time is to the response head, not to the stream's end.
 */
export function requestLog(logger: Logger): MiddlewareHandler {
  return async (c, next) => {
    if (!logger.isLevelEnabled("info")) return next();
    const started = performance.now();
    await next();
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const { method, path } = c.req;
    const status = c.res.status;
    logger.info(
      { req: { method, path }, res: { status }, responseTime: ms },
      `${method} ${path} ${status} ${ms} ms`,
    );
  };
}
