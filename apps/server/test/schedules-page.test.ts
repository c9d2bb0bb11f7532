// A schedule into a chat page user's conversation through the composed server: the tick's prompt and
// the agent's reply appear in that account's conversation (its history and the conversation list),
// once per tick; another account does not see it. The tick finishes in the turn's own transaction.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ChatDb, hashPassword } from "@agentsvc/chat-store";
import { eventually } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProjectServer, startProjectServer } from "../src/testing.js";

let root: string;
let server: ProjectServer;
const passwords = { ada: "correct horse", bob: "battery staple" };

beforeAll(async () => {
  root = mkdtempSync(resolve(import.meta.dirname, "fixtures/.schedules-page-"));
  for (const d of ["agents", "gateways", "schedules"]) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(
    join(root, "package.json"),
    JSON.stringify({ name: "schedules-page-fixture", private: true, type: "module" }),
  );
  writeFileSync(
    join(root, "agents/ops.mjs"),
    `export default { kind: "agent", name: "ops", model: { provider: "demo", script: [{ text: "Three issues are open." }] } };\n`,
  );
  // Not the root agent (ops sorts first): a chat page schedule may name it.
  writeFileSync(
    join(root, "agents/writer.mjs"),
    `export default { kind: "agent", name: "writer", model: { provider: "demo", script: [{ text: "A poem for Monday." }] } };\n`,
  );
  writeFileSync(join(root, "agentsvc.config.yaml"), "rootAgent: ops\n");
  writeFileSync(
    join(root, "schedules/poem.yaml"),
    "every: 10s\nprompt: Write a poem\nagent: writer\nto: { page: web, user: bob }\n",
  );
  // Hashes of few iterations (the hash names its count): this file is about schedules, and each
  // sign-in or seed at the default 600,000 cost about 0.2 CPU-s.
  const hash = (password: string) => hashPassword(password, { iterations: 1000 });
  writeFileSync(
    join(root, "gateways/web.yaml"),
    `exposes: webui\npath: /chat\nusers:\n  - username: ada\n    passwordHash: "${await hash(passwords.ada)}"\n  - username: bob\n    passwordHash: "${await hash(passwords.bob)}"\n`,
  );
  writeFileSync(
    join(root, "schedules/digest.yaml"),
    "every: 10s\nprompt: Write the digest\nto: { page: web, user: ada, conversation: digest }\n",
  );
  server = await startProjectServer(root, { env: {} });
}, 60_000);

afterAll(async () => {
  await server?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function signIn(username: string, password: string): Promise<string> {
  const res = await fetch(`${server.url}/chat/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  expect(res.status).toBe(200);
  return (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
}

describe("a schedule into a chat page conversation", () => {
  it("runs a named agent other than the root agent in the user's conversation (default schedule-<name>)", async () => {
    const bob = await signIn("bob", passwords.bob);
    let texts: string[] = [];
    await eventually(
      async () => {
        const h = (await (
          await fetch(`${server.url}/chat/api/history?conversationId=schedule-poem`, {
            headers: { cookie: bob },
          })
        ).json()) as { messages?: { role: string; content: string }[] };
        texts = (h.messages ?? []).map((m) => `${m.role}: ${m.content}`);
        return texts.length >= 2;
      },
      "the writer's turn in bob's conversation",
      30_000,
    );
    expect(texts.slice(0, 2)).toEqual(["user: Write a poem", "assistant: A poem for Monday."]);
  }, 45_000);

  it("puts the prompt and the reply into the named user's conversation, once per tick", async () => {
    const ticks = async () => {
      const db = ChatDb.open({ appRoot: root, path: "data/chat.db" });
      try {
        return await db.scheduleTicks.recent("digest");
      } finally {
        db.close();
      }
    };
    await eventually(
      async () => (await ticks()).some((t) => t.outcome === "delivered"),
      "a delivered tick",
      30_000,
    );
    const ada = await signIn("ada", passwords.ada);
    const history = (await (
      await fetch(`${server.url}/chat/api/history?conversationId=digest`, { headers: { cookie: ada } })
    ).json()) as { messages: { role: string; content: string }[] };
    const delivered = (await ticks()).filter((t) => t.outcome === "delivered").length;
    const texts = history.messages.map((m) => `${m.role}: ${m.content}`);
    expect(texts.slice(0, 2)).toEqual(["user: Write the digest", "assistant: Three issues are open."]);
    // One user message and one answer per delivered tick (a tick after the read may have added more).
    expect(texts.filter((t) => t === "assistant: Three issues are open.").length).toBeGreaterThanOrEqual(
      delivered,
    );
    expect(texts.filter((t) => t === "user: Write the digest").length).toBe(
      texts.filter((t) => t === "assistant: Three issues are open.").length,
    );
    const list = (await (
      await fetch(`${server.url}/chat/api/conversations`, { headers: { cookie: ada } })
    ).json()) as {
      conversations: { conversationId: string }[];
    };
    expect(list.conversations.map((c) => c.conversationId)).toContain("digest");
    const bob = await signIn("bob", passwords.bob);
    const theirs = (await (
      await fetch(`${server.url}/chat/api/conversations`, { headers: { cookie: bob } })
    ).json()) as {
      conversations: { conversationId: string }[];
    };
    expect(theirs.conversations.map((c) => c.conversationId)).not.toContain("digest");
  }, 45_000);
});
