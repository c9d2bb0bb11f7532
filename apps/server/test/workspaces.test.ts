import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";

// Two webui entries on one store file: /chat is open, /keyed needs an API key. Each open entry is
// its own shared workspace, so nothing said behind the key can be read through the open entry.
let server: RunningServer;
const KEY = "workspace-test-key";

beforeAll(async () => {
  const loaded = await loadProject(resolve(import.meta.dirname, "fixtures/page-e2e"));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const root = mkdtempSync(join(tmpdir(), "agentsvc-workspaces-"));
  server = await startServer(
    { ...loaded.project, root },
    {
      port: 0,
      logger: pino({ level: "silent" }),
      env: { PAGE_E2E_KEY: KEY },
      buildDir: join(root, "build"),
      interactive: false,
    },
  );
});
afterAll(async () => {
  await server?.shutdown();
});

const json = async (path: string, body?: unknown, key?: string) => {
  const res = await fetch(`${server.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json", ...(key ? { "x-api-key": key } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe("open webui entries sharing a store file", () => {
  it("keep separate workspaces, so a keyed entry's conversations are not readable through an open one", async () => {
    const made = await json(
      "/keyed/api/invoke",
      { input: "secret behind the key", conversationId: "k1" },
      KEY,
    );
    expect(made.status).toBe(200);
    const keyedList = await json("/keyed/api/conversations", undefined, KEY);
    expect(
      (keyedList.body.conversations as { conversationId: string }[]).map((c) => c.conversationId),
    ).toContain("k1");

    const openList = await json("/chat/api/conversations");
    expect(
      (openList.body.conversations as { conversationId: string }[]).map((c) => c.conversationId),
    ).not.toContain("k1");
    const openHistory = await json("/chat/api/history?conversationId=k1");
    expect(JSON.stringify(openHistory.body)).not.toContain("secret behind the key");
    const openTurn = await json("/chat/api/invoke", { input: "let me in", conversationId: "k1" });
    expect(openTurn.status).toBe(403);
  });
});
