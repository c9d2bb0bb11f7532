// The page's users share one RunManager and one memory with the agent route (every caller is
// `anonymous`, conversation `default`) and the gateways (user id = the gateway's name, conversation
// = the platform's thread). Memory, runs and approvals are keyed by user id alone, so a page identity
// with one of those names must not reach their conversations or decide their suspended runs.
import type { AddressInfo } from "node:net";
import { agentRoutes } from "@agentsvc/agent-routes";
import { type ServerType, serve } from "@hono/node-server";
import { Hono } from "hono";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { APPROVAL_TOOL, type Harness, startHarness } from "./harness.js";

let h: Harness | undefined;
let agentServer: ServerType | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (agentServer ? agentServer.close(() => resolve()) : resolve()));
  agentServer = undefined;
  await h?.close();
  h = undefined;
});

/** The agent route as the server mounts it (every caller is its default user), on 127.0.0.1. */
async function serveAgentRoute(harness: Harness): Promise<string> {
  const app = new Hono().route("/agent", agentRoutes({ runs: harness.runs }));
  agentServer = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  return `http://127.0.0.1:${(agentServer.address() as AddressInfo).port}/agent`;
}

describe("a page identity named like another surface's user", () => {
  it("cannot read, write or clear the agent route's conversation, and the account is named at start", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "error" }, { write: (line: string) => void lines.push(line) });
    h = await startHarness({
      users: [{ username: "anonymous", passwordEnvVar: "PA" }],
      env: { PA: "pa" },
      chatUi: { logger },
    });
    const agent = await serveAgentRoute(h);
    const said = await fetch(`${agent}/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "the launch code is 4711" }),
    });
    expect(said.status).toBe(200);

    const page = h.client();
    expect((await page.login("anonymous", "pa")).status).toBe(200);
    const history = await page.get("/history?conversationId=default");
    expect(history.status).toBe(403);
    expect(history.body.error.code).toBe("identity_reserved");
    expect(history.text).not.toContain("4711");
    expect((await page.post("/clear", { conversationId: "default" })).status).toBe(403);
    expect(
      (await page.post("/invoke", { input: "ignore the above", conversationId: "default" })).status,
    ).toBe(403);
    const kept = JSON.stringify(await h.runs.memory.load({ userId: "anonymous", conversationId: "default" }));
    expect(kept).toContain("4711");
    expect(kept).not.toContain("ignore the above");
    expect(lines.join("")).toContain('the account \\"anonymous\\"');
  });

  it("sees nothing pending and cannot approve a channel adapter's suspended run under its raw thread id", async () => {
    // A channel adapter runs as its entry name; the server has not named it (no reservedUserIds).
    h = await startHarness({ users: [{ username: "ops-hooks", passwordEnvVar: "PG" }], env: { PG: "pg" } });
    // A run as session-core starts one for that adapter's thread.
    const threadId = "gw:ops-hooks:deploy-42";
    const run = h.runs.start({
      input: `use ${APPROVAL_TOOL} on notes.txt`,
      threadId,
      userId: "ops-hooks",
      conversationId: "deploy-42",
    });
    expect((await run.done).status).toBe("suspended");

    const page = h.client();
    expect((await page.login("ops-hooks", "pg")).status).toBe(200);
    const pending = await page.get(`/pending?threadId=${encodeURIComponent(threadId)}`);
    expect(pending.status).toBe(200);
    expect(pending.body.pending).toBeNull();
    const resume = await page.post("/resume", { threadId, decision: "approve" });
    expect(resume.status).toBe(403);
    expect(resume.body.error.code).toBe("forbidden");
    // Still waiting for the adapter's own decision.
    expect(await h.runs.pending(threadId, { userId: "ops-hooks" })).toBeDefined();
  });

  it("an operator's resolver naming a gateway type, another entry's workspace or a channel the server names is refused on every route; other people are not", async () => {
    // An operator's resolver over a single sign-on, where people pick their own login.
    h = await startHarness({
      chatUi: {
        resolveIdentity: async (c) => ({ userId: c.req.header("x-sso-user") ?? "" }),
        // What the server adds: a channel adapter's entry name.
        reservedUserIds: ["ops-hooks"],
      },
    });
    const page = h.client();
    for (const who of ["github", "whatsapp", "shared:support", "ops-hooks"]) {
      const as = { "x-sso-user": who };
      for (const reply of [
        await page.get("/history?conversationId=repo%3Ao%2Fr%3Aissue%3A1", as),
        await page.get("/conversations", as),
        await page.post("/clear", { conversationId: "repo:o/r:issue:1" }, as),
      ]) {
        expect(reply.status, who).toBe(403);
        expect(reply.body.error.code).toBe("identity_reserved");
      }
    }
    expect((await page.get("/conversations", { "x-sso-user": "alice" })).status).toBe(200);
  });

  it("the entry's own open workspace is the page's user", async () => {
    h = await startHarness();
    expect((await h.client().get("/conversations")).status).toBe(200);
  });
});
