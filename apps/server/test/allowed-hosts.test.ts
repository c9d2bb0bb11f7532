import { request } from "node:http";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";
import { helloProject } from "./hello-server.js";

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.shutdown();
  server = undefined;
});

async function start(allowedHosts?: string[]): Promise<RunningServer> {
  const project = await helloProject();
  if (allowedHosts) project.config = { ...project.config, allowedHosts };
  return startServer(project, { port: 0, logger: pino({ level: "silent" }) });
}

interface Sent {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
}

/** A request with a chosen Host (and the matching Origin a rebound page would send). */
function send(port: number, host: string, sent: Sent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      host: `${host}:${port}`,
      origin: `http://${host}:${port}`,
      accept: "application/json, text/event-stream",
    };
    if (sent.body !== undefined) headers["content-type"] = "application/json";
    const req = request(
      { host: "127.0.0.1", port, path: sent.path, method: sent.method, headers, timeout: 10_000 },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end(sent.body === undefined ? undefined : JSON.stringify(sent.body));
  });
}

const MCP_INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};

// The open webui entry (page and API), the agent route and the MCP route of the hello example.
const ROUTES: Sent[] = [
  { method: "GET", path: "/chat/index.html" },
  { method: "GET", path: "/chat/api/conversations" },
  { method: "POST", path: "/chat/api/conversations/create", body: { title: "x" } },
  { method: "POST", path: "/agent/invoke", body: { input: "hello" } },
  { method: "POST", path: "/mcp", body: MCP_INIT },
];

describe("allowed hosts (DNS-rebinding guard)", () => {
  it("refuses a foreign Host with a matching Origin on every route, and serves loopback names", async () => {
    server = await start();
    for (const route of ROUTES) {
      const rebound = await send(server.port, "evil.example", route);
      expect(rebound.status, `${route.method} ${route.path}`).toBe(403);
      expect(rebound.body, route.path).toContain("not allowed");
      for (const local of ["localhost", "127.0.0.1"]) {
        const ok = await send(server.port, local, route);
        expect(ok.status, `${local} ${route.method} ${route.path}`).toBe(200);
      }
    }
    // Nothing the rebound requests asked for happened: only the two loopback creates exist.
    const list = await send(server.port, "localhost", { method: "GET", path: "/chat/api/conversations" });
    expect(JSON.parse(list.body).conversations.map((c: { title: string }) => c.title)).toEqual(["x", "x"]);
  });

  it("serves the names listed in the project's allowedHosts, a leading dot covering subdomains", async () => {
    server = await start(["chat.example.com", ".corp.example"]);
    for (const host of ["chat.example.com", "team.corp.example", "corp.example"]) {
      for (const route of ROUTES) {
        expect((await send(server.port, host, route)).status, `${host} ${route.path}`).toBe(200);
      }
    }
    expect((await send(server.port, "evil.example", ROUTES[0] as Sent)).status).toBe(403);
  });

  it("allows the host of publicBaseUrl, where platforms call webhooks, without listing it again", async () => {
    const project = await helloProject();
    project.config = { ...project.config, publicBaseUrl: "https://bot.example.net/" };
    server = await startServer(project, { port: 0, logger: pino({ level: "silent" }) });
    expect((await send(server.port, "bot.example.net", ROUTES[0] as Sent)).status).toBe(200);
    expect((await send(server.port, "other.example.net", ROUTES[0] as Sent)).status).toBe(403);
  });
});
