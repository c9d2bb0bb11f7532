// The request line (src/request-log.ts): what it writes at info, that it writes nothing below info,
// and that the level is read at each request (a logger raised to info later logs from then on).
import { Hono } from "hono";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { requestLog } from "../src/request-log.js";

function logged(level: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const app = new Hono();
  app.use(requestLog(logger));
  app.get("/ok/*", (c) => c.text("fine"));
  app.post("/teapot", (c) => c.text("no", 418));
  return { app, lines, logger };
}

describe("requestLog", () => {
  it("writes one info line a request: method, path without its query, status and time", async () => {
    const { app, lines } = logged("info");
    const res = await app.request("/ok/x?token=secret");
    expect(await res.text()).toBe("fine");
    await app.request("/teapot", { method: "POST" });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: 30,
      req: { method: "GET", path: "/ok/x" },
      res: { status: 200 },
    });
    expect(typeof lines[0]?.responseTime).toBe("number");
    expect(lines[0]?.msg).toBe(`GET /ok/x 200 ${lines[0]?.responseTime} ms`);
    expect(lines[1]).toMatchObject({ req: { method: "POST", path: "/teapot" }, res: { status: 418 } });
    expect(JSON.stringify(lines)).not.toContain("secret");
  });

  it("escapes control characters of the decoded path, so a %0a starts no second line", async () => {
    const { app, lines } = logged("info");
    await app.request("/ok/a%0ab%1bc");
    expect(lines[0]?.msg).toBe(`GET /ok/a\\nb\\u001bc 200 ${lines[0]?.responseTime} ms`);
  });

  it("writes nothing below info and still answers", async () => {
    const { app, lines } = logged("warn");
    const res = await app.request("/ok/x");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("fine");
    const refused = await app.request("/teapot", { method: "POST" });
    expect(refused.status).toBe(418);
    expect(lines).toEqual([]);
  });

  it("reads the level at each request: a logger raised to info after start logs from then on", async () => {
    const { app, lines, logger } = logged("warn");
    await app.request("/ok/before");
    logger.level = "info";
    await app.request("/ok/after");
    expect(lines.map((l) => l.msg)).toEqual([`GET /ok/after 200 ${lines[0]?.responseTime} ms`]);
  });
});
