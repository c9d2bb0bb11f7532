import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadProject, type Project } from "@agentsvc/config-schema";
import { signatureHeaders } from "@agentsvc/gateway-http";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";

const fixture = resolve(import.meta.dirname, "fixtures/gateways");
const SECRET = "s3cret-for-tests";

async function load(dir: string): Promise<Project> {
  const loaded = await loadProject(dir);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => `${e.file}: ${e.path}: ${e.message}`).join("\n"));
  return loaded.project;
}

let server: RunningServer;
// The fixture's store lives in its own data/ folder (adapters resolve from the project root), so start clean.
const cleanData = () => rmSync(join(fixture, "data"), { recursive: true, force: true });
beforeAll(async () => {
  cleanData();
  const project = await load(fixture);
  server = await startServer(project, {
    port: 0,
    logger: pino({ level: "silent" }),
    env: { HOOKS_SECRET: SECRET },
    buildDir: mkdtempSync(join(tmpdir(), "agentsvc-gw-build-")),
    interactive: false,
  });
});
afterAll(async () => {
  await server?.shutdown();
  cleanData();
});

async function signed(method: "GET" | "POST", path: string, body?: unknown): Promise<Response> {
  const raw = body === undefined ? undefined : JSON.stringify(body);
  const bytes = new TextEncoder().encode(raw ?? `${method} ${path}`);
  return fetch(`${server.url}${path}`, {
    method,
    headers: { ...signatureHeaders(SECRET, bytes), ...(raw ? { "content-type": "application/json" } : {}) },
    ...(raw ? { body: raw } : {}),
  });
}

async function outbox(thread: string, until: (m: Record<string, unknown>[]) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await signed("GET", `/gateways/hooks/threads/${thread}/messages?after=0`);
    const body = (await res.json()) as { messages: Record<string, unknown>[] };
    if (until(body.messages) || Date.now() > deadline) return body.messages;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("gateways wired by the server", () => {
  it("runs a signed http event as a turn of the root agent and puts the reply in the outbox", async () => {
    const res = await signed("POST", "/gateways/hooks/events", {
      id: "evt-1",
      thread: "t1",
      text: "hello ops",
    });
    expect(res.status).toBe(202);
    const messages = await outbox("t1", (m) => m.some((x) => x.kind === "reply"));
    const reply = messages.find((m) => m.kind === "reply") as { text: string };
    expect(reply.text).toContain("hello ops");
  });

  it("refuses an unsigned event with 401", async () => {
    const res = await fetch(`${server.url}/gateways/hooks/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "evt-x", thread: "t9", text: "hi" }),
    });
    expect(res.status).toBe(401);
  });

  it("asks for approval through the gateway the run came from and resumes on its decision", async () => {
    await signed("POST", "/gateways/hooks/events", { id: "evt-2", thread: "t2", text: "please deploy web" });
    const asked = await outbox("t2", (m) => m.some((x) => x.kind === "interaction"));
    const request = asked.find((m) => m.kind === "interaction") as { requestId: string; toolName: string };
    expect(request.toolName).toBe("deploy");
    const decided = await signed("POST", `/interactions/${request.requestId}/decisions`, {
      decision: "approve",
    });
    expect(decided.status).toBe(200);
    expect(((await decided.json()) as { decidedBy: string }).decidedBy).toBe("http:hooks");
    const after = await outbox("t2", (m) =>
      m.some((x) => x.kind === "reply" && String(x.text).includes("deploy")),
    );
    expect(after.some((m) => m.kind === "reply" && String(m.text).includes("deployed"))).toBe(true);
  });
});

describe("gateway packages are loaded only when an entry needs them", () => {
  it("fails at boot naming the install command when a push-style adapter is not installed", async () => {
    const loaded = await load(resolve(import.meta.dirname, "fixtures/missing-adapter"));
    // Every platform package exists in this workspace: resolve adapters from a folder outside it,
    // as a user's project without the package installed would.
    const project = { ...loaded, root: mkdtempSync(join(tmpdir(), "agentsvc-no-adapters-")) };
    await expect(
      startServer(project, {
        port: 0,
        logger: pino({ level: "silent" }),
        env: {},
        interactive: false,
        buildDir: mkdtempSync(join(tmpdir(), "agentsvc-gw-build-")),
      }),
    ).rejects.toThrow(/gateways\/signal\.yaml: type: .*npm install @agentsvc\/gateway-signal/);
  });
});
