// Rejected credentials over the real server: the http gateway's callback answers 401, so the platform
// (the receiver) rejected the signing secret. That gateway stops, /health says why, the reply stays
// pending, and another gateway and the agent route keep answering.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Writable } from "node:stream";
import { CURRENT_SCHEMA_VERSION, ChatDb } from "@agentsvc/chat-store";
import { spawn } from "node:child_process";
import { loadProject } from "@agentsvc/config-schema";
import { signatureHeaders } from "@agentsvc/gateway-http";
import pino from "pino";
import { eventually } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";
import { startHello } from "./hello-server.js";

const SECRETS = { BAD_SECRET: "bad-secret", GOOD_SECRET: "good-secret" };
let root: string;
let server: RunningServer;
let receiver: Server;
let callbacks = 0;
const lines: { level: number; msg?: string; envVar?: string }[] = [];

beforeAll(async () => {
  // The callback receiver refuses our signature, as a client whose secret was rotated would.
  receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      callbacks += 1;
      res.writeHead(401).end("bad signature");
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, "127.0.0.1", ok));
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cb`;
  // Inside the workspace, so the agent file and the adapter package resolve from the project root.
  root = mkdtempSync(resolve(import.meta.dirname, "fixtures/.health-"));
  mkdirSync(join(root, "agents"));
  mkdirSync(join(root, "gateways"));
  writeFileSync(
    join(root, "package.json"),
    JSON.stringify({ name: "health-fixture", private: true, type: "module" }),
  );
  writeFileSync(
    join(root, "agents/ops.mjs"),
    `import { defineAgent } from "@agentsvc/agent-core";\nexport default defineAgent({ name: "ops", model: { provider: "demo" }, memory: { type: "window" } });\n`,
  );
  writeFileSync(
    join(root, "gateways/bad.yaml"),
    `type: http\nsecretEnvVar: BAD_SECRET\ncallbackUrl: ${callbackUrl}\n`,
  );
  writeFileSync(join(root, "gateways/good.yaml"), "type: http\nsecretEnvVar: GOOD_SECRET\n");
  // Stands for a connection-based adapter (a long poll, a socket) whose login is refused.
  writeFileSync(join(root, "gateways/conn.yaml"), "type: mock\n");
  writeFileSync(join(root, "gateways/agent.yaml"), "exposes: agent\npath: /agent\n");
  const loaded = await loadProject(root);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => `${e.file}: ${e.path}: ${e.message}`).join("\n"));
  const destination = new Writable({
    write(chunk, _e, cb) {
      for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  server = await startServer(loaded.project, {
    port: 0,
    logger: pino({ level: "info" }, destination),
    env: SECRETS,
    buildDir: mkdtempSync(join(tmpdir(), "agentsvc-health-build-")),
    interactive: false,
  });
});

afterAll(async () => {
  await server?.shutdown();
  receiver?.closeAllConnections();
  await new Promise<void>((ok) => (receiver ? receiver.close(() => ok()) : ok()));
  if (root) rmSync(root, { recursive: true, force: true });
});

async function signedEvent(gateway: "bad" | "good", body: Record<string, string>): Promise<Response> {
  const raw = JSON.stringify(body);
  const secret = gateway === "bad" ? SECRETS.BAD_SECRET : SECRETS.GOOD_SECRET;
  return fetch(`${server.url}/gateways/${gateway}/events`, {
    method: "POST",
    headers: {
      ...signatureHeaders(secret, new TextEncoder().encode(raw)),
      "content-type": "application/json",
    },
    body: raw,
  });
}

type Health = { status: string; gateways: Record<string, { state: string; reason?: string }> };
const health = async (): Promise<Health> => (await (await fetch(`${server.url}/health`)).json()) as Health;

describe("GET /health and rejected credentials", () => {
  it("shows every gateway running at first", async () => {
    expect(await health()).toEqual({
      status: "ok",
      gateways: { bad: { state: "running" }, conn: { state: "running" }, good: { state: "running" } },
    });
  });

  it("stops the gateway whose credentials were rejected, keeps its reply pending, and keeps the rest running", async () => {
    expect((await signedEvent("bad", { id: "e1", thread: "t1", text: "hello" })).status).toBe(202);
    await eventually(
      async () => (await health()).gateways.bad?.state === "stopped",
      "the bad gateway stopped",
    );
    const now = await health();
    expect(now.status).toBe("ok");
    expect(now.gateways.bad?.reason).toMatch(/^credentials rejected by http: check BAD_SECRET \(.*401/);
    expect(now.gateways.good).toEqual({ state: "running" });
    expect(callbacks).toBe(1);

    const errors = lines.filter((l) => l.level === 50 && String(l.msg).startsWith("credentials rejected by"));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.envVar).toBe("BAD_SECRET");

    // The reply waits in the store, its attempt not counted, for after the secret is fixed.
    const db = ChatDb.open({ appRoot: root, path: "data/agentsvc.db" });
    try {
      const rows = await db.outbox.list("bad", "t1");
      expect(rows.map((r) => [r.kind, r.status, r.attempts])).toEqual([["text", "pending", 0]]);
    } finally {
      db.close();
    }

    // The other gateway and the agent route keep answering.
    expect((await signedEvent("good", { id: "e2", thread: "t2", text: "still up?" })).status).toBe(202);
    await eventually(async () => {
      const path = "/gateways/good/threads/t2/messages?after=0";
      const res = await fetch(`${server.url}${path}`, {
        headers: signatureHeaders(SECRETS.GOOD_SECRET, new TextEncoder().encode(`GET ${path}`)),
      });
      const body = (await res.json()) as { messages: { kind: string; text: string }[] };
      return body.messages.some((m) => m.kind === "reply" && m.text.includes("still up?"));
    }, "the good gateway's reply");
    const invoke = await fetch(`${server.url}/agent/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "are you there" }),
    });
    expect(invoke.status).toBe(200);
    expect(((await invoke.json()) as { output: string }).output).toContain("are you there");
    expect(callbacks).toBe(1);
  });

  it("shows a gateway whose connection reported rejected credentials as stopped, the rest untouched", async () => {
    // What GatewayContext.credentialsRejected calls for the gateway it belongs to.
    server.session.credentialsRejected("conn", "CONN_TOKEN", "close 4004 Authentication failed");
    const now = await health();
    expect(now.gateways.conn).toEqual({
      state: "stopped",
      reason: "credentials rejected by mock: check CONN_TOKEN (close 4004 Authentication failed)",
    });
    // Untouched: running, no reason (its traffic shows as ages, below).
    expect(now.gateways.good).toMatchObject({ state: "running" });
    expect(now.gateways.good?.reason).toBeUndefined();
    const errors = lines.filter((l) => l.level === 50 && String(l.msg).includes("check CONN_TOKEN"));
    expect(errors).toHaveLength(1);
    expect((await signedEvent("good", { id: "e3", thread: "t3", text: "and now?" })).status).toBe(202);
  });
});

describe("the root /health beside a webui's <path>/api/health", () => {
  it("answers both, each its own", async () => {
    const hello = await startHello();
    try {
      const root = (await (await fetch(`${hello.url}/health`)).json()) as Health;
      expect(root).toMatchObject({ status: "ok", gateways: expect.any(Object) });
      const webui = await (await fetch(`${hello.url}/chat/api/health`)).json();
      expect(webui).toEqual({ success: true, status: "ok", store: "ok" });
    } finally {
      await hello.shutdown();
    }
  });
});

type Ready = {
  status: string;
  reason?: string;
  store: { state: string; schemaVersion?: number; detail?: string };
  gateways: Record<
    string,
    { state: string; reason?: string; lastInboundAgeSeconds?: number; lastPlatformCallAgeSeconds?: number }
  >;
};

describe("the orchestrator probes /health/live and /health/ready", () => {
  it("is ready with the current schema while a gateway is stopped for its credentials, which it lists with the reason", async () => {
    const res = await fetch(`${server.url}/health/ready`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Ready;
    expect(body.status).toBe("ready");
    expect(body.store).toEqual({ state: "ok", schemaVersion: CURRENT_SCHEMA_VERSION });
    // The good gateway took a message and sent its reply: how long ago each was (#43 item 11).
    expect(body.gateways.good).toEqual({
      state: "running",
      lastInboundAgeSeconds: expect.any(Number),
      lastPlatformCallAgeSeconds: expect.any(Number),
    });
    expect(body.gateways.bad?.state).toBe("stopped");
    expect(body.gateways.bad?.reason).toMatch(/check BAD_SECRET/);
  });

  it("answers ready 503 while another process holds the store's write lock, and live 200 throughout", async () => {
    const holder = await holdWriteLock(join(root, "data/agentsvc.db"));
    try {
      const ready = await fetch(`${server.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as Ready).store.state).toBe("read-only");
      const live = await fetch(`${server.url}/health/live`);
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ status: "ok" });
    } finally {
      await holder.release();
    }
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
  });
});

/**
 * Another process (node's own SQLite) holds the file's write lock until released. It waits for a
 * write of the server's in progress (without a busy timeout BEGIN IMMEDIATE failed at once:
 * "database is locked", a loaded run of the CLI and server projects).
 */
async function holdWriteLock(file: string): Promise<{ release(): Promise<void> }> {
  const script = `const { DatabaseSync } = require("node:sqlite");
const db = new DatabaseSync(${JSON.stringify(file)});
db.exec("PRAGMA busy_timeout = 10000");
db.exec("BEGIN IMMEDIATE");
process.stdout.write("locked\\n");
process.stdin.on("end", () => { db.exec("ROLLBACK"); db.close(); process.exit(0); }).resume();`;
  const child = spawn(process.execPath, ["--no-warnings", "-e", script], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  await new Promise<void>((ok, fail) => {
    child.stdout.once("data", () => ok());
    child.once("exit", (code) => fail(new Error(`the lock holder exited (${code})`)));
  });
  return {
    release: () =>
      new Promise<void>((ok) => {
        child.once("exit", () => ok());
        child.stdin.end();
      }),
  };
}
