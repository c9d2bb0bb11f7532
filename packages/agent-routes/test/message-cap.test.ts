// #38 item 1: one message is capped (200,000 characters, as the chat page's API), so what a turn
// stores and later prompts read back is bounded per message; an oversize message is a 413 the
// client can read, not a failure (no turn runs, nothing is stored).
import { defineAgent, RunManager, WindowMemory } from "@agentsvc/agent-core";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { agentRoutes, MAX_MESSAGE_CHARS } from "../src/index.js";
import { listen, postJson } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function route() {
  const memory = new WindowMemory();
  const runs = new RunManager({ agent: defineAgent({ name: "h", model: { provider: "demo" } }), memory });
  const app = new Hono();
  app.route("/agent", agentRoutes({ runs }));
  const server = await listen(app);
  closers.push(server.close);
  return { base: `${server.url}/agent`, memory };
}

describe("the message size cap of the agent route", () => {
  it("answers 413 message_too_large for a message one character over, on /invoke, /stream and /batch, and stores nothing", async () => {
    const { base, memory } = await route();
    const over = "x".repeat(MAX_MESSAGE_CHARS + 1);
    for (const [path, body] of [
      ["/invoke", { input: over }],
      ["/stream", { input: over }],
      ["/batch", { inputs: ["short", over] }],
    ] as const) {
      const res = await postJson(`${base}${path}`, body);
      expect(res.status).toBe(413);
      const error = ((await res.json()) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe("message_too_large");
      expect(error.message).toContain("200000-character limit");
    }
    expect(await memory.load({ userId: "anonymous", conversationId: "default" })).toEqual([]);
  });

  it("takes a message of exactly the limit", async () => {
    const { base } = await route();
    const res = await postJson(`${base}/invoke`, { input: "y".repeat(MAX_MESSAGE_CHARS) });
    expect(res.status).toBe(200);
  });
});
