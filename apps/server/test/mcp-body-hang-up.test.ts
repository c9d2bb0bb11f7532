// A client that hangs up in the middle of its POST body to /mcp (the hello example's tool server,
// over real HTTP on 127.0.0.1): the server logs one line that says why under the "mcp" logger,
// answers the request 400 in the request log, and keeps serving.
import { once } from "node:events";
import { connect } from "node:net";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../src/index.js";
import { startHello } from "./hello-server.js";

let server: RunningServer | undefined;
afterAll(async () => {
  await server?.shutdown();
});

describe("/mcp with a body cut off by its client", () => {
  it("logs 'mcp POST /mcp: the body could not be read (aborted)' and the request as 400", async () => {
    const lines: Record<string, unknown>[] = [];
    let seen!: () => void;
    const both = new Promise<void>((resolve) => {
      seen = resolve;
    });
    const logger = pino(
      { level: "info" },
      {
        write: (line: string) => {
          lines.push(JSON.parse(line) as Record<string, unknown>);
          const mcp = lines.some((l) => l.name === "mcp");
          const http = lines.some((l) => l.name === "http" && String(l.msg).startsWith("POST /mcp"));
          if (mcp && http) seen();
        },
      },
    );
    server = await startHello({ logger });
    const { port } = new URL(server.url);
    const socket = connect(Number(port), "127.0.0.1");
    await once(socket, "connect");
    socket.write(
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
        "Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n" +
        '{"jsonrpc":"2.0","id":1,"method":"initi',
      () => socket.destroy(),
    );
    await both;
    expect(lines.filter((l) => l.name === "mcp")).toEqual([
      expect.objectContaining({
        level: 40,
        path: "/mcp",
        msg: "mcp POST /mcp: the body could not be read (aborted)",
      }),
    ]);
    expect(lines.find((l) => l.name === "http")?.msg).toMatch(/^POST \/mcp 400 /);
    const after = await fetch(`${server.url}/health`);
    expect(after.status).toBe(200);
  });
});
