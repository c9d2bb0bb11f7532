// A reminder set in a Telegram conversation (the Telegram fake, a scripted OpenAI fake) through the
// bundled bin: the service is SIGKILLed after the reminder is set, is down when it falls due, and the
// next process delivers it into the same chat, exactly once. `agentsvc schedules list | cancel`
// read and end it in the same store.
import { FakeOpenAI, OPENAI_TEST_KEY, TelegramFake } from "@agentsvc/testkit";
import { eventually } from "@agentsvc/testkit/session";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, serveBin } from "./child.js";
import { linkPackages, run, tempDir, writeFiles } from "./helpers.js";

const CHAT = 4242;

describe("a reminder set in a Telegram chat, through the bundled bin", () => {
  let telegram: TelegramFake;
  let model: FakeOpenAI;
  let root: string;
  let env: Record<string, string>;
  const served: Served[] = [];

  const start = async () => {
    const s = await serveBin(["start", root, "--port", "0"], env);
    served.push(s);
    return s;
  };
  const texts = () => telegram.chat.botMessages.filter((m) => m.chatId === CHAT).map((m) => m.text);
  const cli = (...args: string[]) => run(["schedules", ...args, "--dir", root], { env });

  beforeAll(async () => {
    telegram = await TelegramFake.start();
    model = await FakeOpenAI.start();
    env = { TG_TOKEN: telegram.token, OPENAI_API_KEY: OPENAI_TEST_KEY };
    root = tempDir("agentsvc-reminders-");
    writeFiles(root, {
      "package.json": JSON.stringify({ name: "reminders-fixture", private: true, type: "module" }),
      "agents/bot.mjs": `export default { kind: "agent", name: "bot", model: { provider: "openai", model: "gpt-4o-mini", baseURL: ${JSON.stringify(model.baseURL)} }, reminders: { timezone: "Europe/Berlin", maxPerUser: 5 } };\n`,
      "gateways/telegram.yaml": `type: telegram\nbotTokenEnvVar: TG_TOKEN\napiBaseUrl: ${telegram.url}\ndmPolicy: open\n`,
    });
    linkPackages(root, { "@agentsvc/gateway-telegram": "packages/gateway-telegram" });
  }, 60_000);

  afterAll(async () => {
    for (const s of served) await s.stop();
    await telegram?.close();
    await model?.close();
  });

  it("fires into the chat it was set in once, after the service was killed and started again", async () => {
    model.enqueue(
      { toolCalls: [{ name: "remind", arguments: ['{"text":"drink tea",', '"in":"12s"}'] }] },
      { text: ["I will remind you."] },
      { text: ["Time to drink tea!"] },
    );
    const first = await start();
    telegram.chat.userSends({
      chatId: CHAT,
      from: { id: CHAT },
      text: "remind me to drink tea in 12 seconds",
    });
    await eventually(() => texts().includes("I will remind you."), "the answer to the request", 20_000);
    // Killed once the answer is marked sent (a kill between the platform's answer and that mark
    // resends it: the outbox's documented window, not what this test is about).
    await eventually(
      async () =>
        (JSON.parse((await run(["outbox", "list", "--json", "--dir", root], { env })).stdout) as [])
          .length === 0,
      "the answer marked sent",
      10_000,
    );
    first.proc.kill("SIGKILL");
    await new Promise((r) => first.proc.once("exit", r));
    const listed = await cli("list", "--json");
    expect(listed.code).toBe(0);
    const [row] = JSON.parse(listed.stdout) as { name: string; state: string; to: string; nextRun: string }[];
    expect(row).toMatchObject({
      name: "reminder:1",
      state: "enabled",
      to: `telegram ${CHAT} (set by ${CHAT})`,
    });
    // Down while it falls due: the next process catches it up.
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(row!.nextRun) - Date.now()) + 1_000));
    expect(texts()).toEqual(["I will remind you."]);

    await start();
    await eventually(() => texts().length >= 2, "the reminder", 20_000);
    // Passes go on every second: nothing runs it again.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(texts()).toEqual(["I will remind you.", "Time to drink tea!"]);
    expect(model.pending).toBe(0);
    expect(model.count).toBe(3);
    // The reminder's turn read the reminder's text, in the same conversation.
    const body = model.requests[2]!.body as { messages: { role: string; content: unknown }[] };
    const lastUser = body.messages.filter((m) => m.role === "user").at(-1);
    expect(JSON.stringify(lastUser?.content)).toContain("drink tea");
    expect(JSON.stringify(body.messages)).toContain("remind me to drink tea");

    await eventually(
      async () => {
        const r = JSON.parse((await cli("list", "--json")).stdout) as {
          state: string;
          lastOutcome: string;
        }[];
        return r[0]?.state === "done" && r[0]?.lastOutcome === "delivered";
      },
      "schedules list: done and delivered",
      10_000,
    );
    const again = await cli("cancel", "reminder:1");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("reminder:1 already ended (done)");
  }, 90_000);
});
