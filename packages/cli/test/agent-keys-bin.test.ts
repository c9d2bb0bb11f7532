// An agent's own keys through the built bin (`agentsvc start`), against the OpenAI fake, which
// records every prompt: `maxSteps` (model calls in one turn), `memory.maxMessages` and
// `memory.maxPromptTokens` (how much of a conversation's history a prompt carries), and its
// model's `settings.fileInputs` (`[]`: a picture sent through Telegram reaches the model as a note,
// though gpt-4o-mini takes images). The project's `store.durability: process` is seen from outside
// too: under `power` the service keeps the SQLite WAL open read-only beside SQLite's own descriptor,
// to fdatasync it after each group commit (chat-store wal-sync.ts); under `process` it does not.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { eventually, FakeOpenAI, OPENAI_TEST_KEY, TelegramFake } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, serveBin } from "./child.js";
import { linkPackages, tempDir, writeFiles } from "./helpers.js";

const TOOL = `{ kind: "tool", name: "lookup", description: "Looks something up.",
  input: { type: "json-schema", schema: { type: "object", properties: { q: { type: "string" } } } },
  execute: () => ({ found: "yes" }) }`;
const JPEG = Buffer.concat([Buffer.from("ffd8ffe000104a464946", "hex"), Buffer.alloc(3000, 9)]);

interface Sent {
  role: string;
  content: string | { type: string; text?: string }[];
}
const messagesOf = (body: unknown) =>
  ((body as { messages: Sent[] }).messages ?? []).filter((m) => m.role !== "system");
const textOf = (m: Sent) =>
  typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? `<${p.type}>`).join("");

describe("agentsvc start: an agent's maxSteps and memory window, its model's fileInputs, the store's durability", () => {
  let fake: FakeOpenAI;
  let telegram: TelegramFake;
  let served: Served;

  beforeAll(async () => {
    [fake, telegram] = await Promise.all([FakeOpenAI.start(), TelegramFake.start()]);
    const dir = writeFiles(tempDir("agentsvc-agent-keys-"), {
      "agents/bot.mjs": `export default { kind: "agent", name: "bot", tools: [${TOOL}], maxSteps: 2,
  memory: { maxMessages: 3, maxPromptTokens: 300 },
  model: { provider: "openai", model: "gpt-4o-mini", baseURL: ${JSON.stringify(fake.baseURL)},
    settings: { fileInputs: [] } } };\n`,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
      "agentsvc.config.yaml": "store: { durability: process }\n",
      // The entry takes pictures in; the model's fileInputs decide how they reach it.
      "gateways/telegram.yaml": `type: telegram\nbotTokenEnvVar: TELEGRAM_BOT_TOKEN\napiBaseUrl: ${telegram.url}\nmedia: { types: [image] }\n`,
    });
    linkPackages(dir, { "@agentsvc/gateway-telegram": "packages/gateway-telegram" });
    served = await serveBin(["start", dir, "--port", "0"], {
      OPENAI_API_KEY: OPENAI_TEST_KEY,
      TELEGRAM_BOT_TOKEN: telegram.token,
    });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    await Promise.all([fake?.close(), telegram?.close()]);
  });

  /** One turn through the agent route; its prompt is the fake's last request. */
  async function turn(conversationId: string, input: string) {
    const res = await fetch(`${served.url}/agent/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input, conversationId }),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  const lastPrompt = () => messagesOf(fake.requests.at(-1)?.body).map(textOf);

  it("maxSteps: 2 ends a turn that would call the model a third time (max_steps), after two calls", async () => {
    const before = fake.count;
    // Answered with a tool call twice; a third call would get the fake's fallback text.
    fake.enqueue(
      { toolCalls: [{ name: "lookup", arguments: ['{"q":"a"}'] }] },
      { toolCalls: [{ name: "lookup", arguments: ['{"q":"b"}'] }] },
    );
    const { body } = await turn("steps", "look it up");
    expect(JSON.stringify(body)).toContain("max_steps");
    expect(fake.count - before).toBe(2);
  });

  it("memory.maxMessages: 3 gives a prompt the conversation's last three stored messages besides the new one", async () => {
    for (const input of ["first", "second", "third"]) expect((await turn("window", input)).status).toBe(200);
    expect((await turn("window", "fourth")).status).toBe(200);
    expect(lastPrompt()).toEqual(["ok", "third", "ok", "fourth"]);
  });

  it("memory.maxPromptTokens: 300 leaves out an older message over the estimate, though maxMessages would take it", async () => {
    const long = `long ${"x".repeat(2000)}`;
    expect((await turn("tokens", long)).status).toBe(200);
    expect((await turn("tokens", "short")).status).toBe(200);
    expect(lastPrompt()).toEqual(["ok", "short"]);
  });

  it("settings.fileInputs: [] sends a picture as a note naming it, not as an image part", async () => {
    const before = fake.count;
    telegram.pushUpdate({
      message: {
        message_id: 1,
        from: { id: 6161, is_bot: false, first_name: "Ada" },
        chat: { id: 6161, type: "private" },
        date: Math.floor(Date.now() / 1000),
        caption: "what is this",
        photo: [{ ...telegram.files.host(JPEG, "jpg"), width: 1, height: 1 }],
      },
    });
    await eventually(() => telegram.chat.botMessages.length > 0, "the answer to the picture", 20_000);
    expect(fake.count - before).toBe(1);
    // Without fileInputs, gpt-4o-mini gets the picture as an image part beside the caption.
    expect(messagesOf(fake.requests.at(-1)?.body).at(-1)?.content).toBe(
      "what is this\n\n[The user attached an image (image/jpeg, 3010 bytes), which you cannot open here.]",
    );
  }, 60_000);

  it.skipIf(process.platform !== "linux")(
    "store.durability: process: the store's WAL is not held open read-only for fdatasync after commits (it is under power)",
    async () => {
      // A turn commits (its messages), under power followed by a sync of the WAL.
      expect((await turn("durability", "commit something")).status).toBe(200);
      const pid = served.proc.pid as number;
      // Every descriptor of the service on the store's WAL, and whether it was opened read-only.
      const wal = readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
        try {
          if (!readlinkSync(`/proc/${pid}/fd/${fd}`).endsWith("/data/agentsvc.db-wal")) return [];
          const flags = /^flags:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8"))?.[1];
          return [{ fd, readOnly: (Number.parseInt(flags ?? "2", 8) & 3) === 0 }];
        } catch {
          return []; // closed meanwhile
        }
      });
      // SQLite holds the WAL open for writing.
      expect(wal.length).toBeGreaterThan(0);
      expect(wal.filter((d) => d.readOnly)).toEqual([]);
    },
  );
});
