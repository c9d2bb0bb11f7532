// Issue #22 item 2: the open agent route and the gateways share one RunManager, which keys runs by
// threadId, and gateway runs are keyed `gw:<gateway>:<thread>`. An /agent caller that names such an
// id must neither learn of the gateway's run (409 vs 200) nor park a run on the gateway's thread:
// agent-route threads live in their own namespace. Through the real server over HTTP.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { requestSignatureHeaders } from "@agentsvc/gateway-http";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";

const fixture = resolve(import.meta.dirname, "fixtures/agent-threads");
const SECRET = "agent-threads-secret";
let server: RunningServer;
const cleanData = () => rmSync(join(fixture, "data"), { recursive: true, force: true });

beforeAll(async () => {
  cleanData();
  const loaded = await loadProject(fixture);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  server = await startServer(loaded.project, {
    port: 0,
    logger: pino({ level: "silent" }),
    env: { HOOKS_SECRET: SECRET },
    buildDir: mkdtempSync(join(tmpdir(), "agentsvc-agent-threads-")),
    interactive: false,
  });
});
afterAll(async () => {
  await server?.shutdown();
  cleanData();
});

async function signed(method: "GET" | "POST", target: string, body?: unknown): Promise<Response> {
  const raw = body === undefined ? undefined : JSON.stringify(body);
  return fetch(`${server.url}${target}`, {
    method,
    headers: {
      ...requestSignatureHeaders(SECRET, { method, target, ...(raw ? { body: raw } : {}) }),
      ...(raw ? { "content-type": "application/json" } : {}),
    },
    ...(raw ? { body: raw } : {}),
  });
}

type Message = { kind: string; text: string; requestId?: string };
async function outboxUntil(thread: string, done: (m: Message[]) => boolean): Promise<Message[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await signed("GET", `/gateways/hooks/threads/${thread}/messages?after=0`);
    const messages = ((await res.json()) as { messages: Message[] }).messages;
    if (done(messages)) return messages;
    if (Date.now() > deadline) throw new Error(`thread ${thread}: ${JSON.stringify(messages)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const invoke = (body: Record<string, unknown>) =>
  fetch(`${server.url}/agent/invoke`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("agent-route threads are their own namespace", () => {
  it("an agent-route request naming a gateway run's thread id neither sees nor affects that run", async () => {
    expect(
      (
        await signed("POST", "/gateways/hooks/events", {
          id: "v-1",
          thread: "victim",
          text: "use deploy web",
        })
      ).status,
    ).toBe(202);
    const [request] = (await outboxUntil("victim", (m) => m.some((x) => x.kind === "interaction"))).filter(
      (x) => x.kind === "interaction",
    );
    // The gateway run waits for a decision under gw:hooks:victim; the agent route answers as for any free id.
    const probe = await invoke({ input: "hello", threadId: "gw:hooks:victim" });
    expect(probe.status).toBe(200);
    const answer = (await probe.json()) as { threadId: string; status: string };
    expect(answer).toMatchObject({ threadId: "gw:hooks:victim", status: "completed" });
    // The gateway's request is still open and its decision still runs the gateway's turn.
    const view = await signed("GET", `/interactions/${request?.requestId}`);
    expect(((await view.json()) as { interaction: { status: string } }).interaction.status).toBe("open");
    const decided = await signed("POST", `/interactions/${request?.requestId}/decisions`, {
      decision: "approve",
    });
    expect(decided.status).toBe(200);
    await outboxUntil("victim", (m) =>
      m.some((x) => x.kind === "reply" && x.text.includes("deploy returned")),
    );
  });

  it("an agent-route run parked on a gateway thread id does not block that gateway thread", async () => {
    const parked = await invoke({
      input: "use deploy api",
      threadId: "gw:hooks:fresh",
      conversationId: "c-park",
    });
    expect(parked.status).toBe(200);
    expect(((await parked.json()) as { status: string }).status).toBe("suspended");
    expect(
      (await signed("POST", "/gateways/hooks/events", { id: "f-1", thread: "fresh", text: "hello there" }))
        .status,
    ).toBe(202);
    const messages = await outboxUntil("fresh", (m) => m.some((x) => x.kind === "reply"));
    expect(messages.find((x) => x.kind === "reply")?.text).toContain("hello there");
  });

  it("the same agent-route thread id still names the caller's own run on the next turn", async () => {
    const first = await invoke({ input: "use deploy db", threadId: "mine-1", conversationId: "c-mine" });
    expect(((await first.json()) as { status: string }).status).toBe("suspended");
    const again = await invoke({ input: "hi", threadId: "mine-1", conversationId: "c-other" });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "thread_busy",
      message: expect.stringContaining("thread mine-1 "),
    });
  });
});
