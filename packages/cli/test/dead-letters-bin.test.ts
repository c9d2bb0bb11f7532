// Dead letters through the built bin: a WhatsApp reply Meta accepted and then reported failed
// (131047, the 24-hour window had closed) becomes a dead letter of the running `agentsvc start`,
// `agentsvc outbox list --dead` shows it with its reason, `outbox retry` queues it again once the
// user has written, and the running service delivers it (outbox.test.ts had this against the
// server library; the bin's start now runs it).
// The same start (one process, suite time) has a chat page whose `database.datasource` names a
// declared SQLite datasource (`datasources: { pages: { type: sqlite } }`), which no other bin test
// declared: start accepts it (an undeclared name fails it) and the page's turns go to its
// `database.path`, its history reading them back.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { eventually, FakeWhatsApp } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBinAsync, type Served, serveBin } from "./child.js";
import { BOT_AGENT, linkPackages, tempDir, writeFiles } from "./helpers.js";

const env = {
  WA_ACCESS_TOKEN: "tok",
  WA_PHONE_NUMBER_ID: "1065",
  WA_APP_SECRET: "app-secret",
  WA_VERIFY_TOKEN: "vt",
};
const USER = "15550001";

interface Listed {
  id: number;
  gateway: string;
  thread: string;
  status: string;
  reason: string | null;
}

let fake: FakeWhatsApp;
let served: Served;
let dir: string;

const outbox = (...args: string[]) => runBinAsync(["outbox", ...args, "--dir", dir], env);
const listed = async (...args: string[]): Promise<Listed[]> => {
  const r = await outbox("list", "--json", ...args);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Listed[];
};

beforeAll(async () => {
  fake = await FakeWhatsApp.start({
    appSecret: env.WA_APP_SECRET,
    accessToken: env.WA_ACCESS_TOKEN,
    phoneNumberId: env.WA_PHONE_NUMBER_ID,
    verifyToken: env.WA_VERIFY_TOKEN,
  });
  dir = writeFiles(tempDir("agentsvc-dead-letters-"), {
    "agents/bot.mjs": BOT_AGENT,
    "gateways/whatsapp.yaml": `type: whatsapp\naccessTokenEnvVar: WA_ACCESS_TOKEN\nphoneNumberIdEnvVar: WA_PHONE_NUMBER_ID\nappSecretEnvVar: WA_APP_SECRET\nverifyTokenEnvVar: WA_VERIFY_TOKEN\napiBaseUrl: ${fake.url}\n`,
    "gateways/web.yaml":
      "exposes: webui\npath: /chat\ndatabase: { datasource: pages, path: data/pages.db }\n",
    "agentsvc.config.yaml": "datasources:\n  pages: { type: sqlite }\n",
  });
  linkPackages(dir, { "@agentsvc/gateway-whatsapp": "packages/gateway-whatsapp" });
  served = await serveBin(["start", dir, "--port", "0"], env);
  fake.webhookUrl = `${served.url}/webhooks/whatsapp`;
}, 60_000);

afterAll(async () => {
  await served?.stop();
  await fake?.close();
});

describe("agentsvc start: a reply the platform refused is a dead letter the outbox verbs see and retry", () => {
  it("lists the refused reply as dead with Meta's reason; retried once the window is open, the running service delivers it", async () => {
    fake.windowClosed.add(USER);
    expect((await fake.deliverText({ from: USER, text: "are you there", id: "wamid.in1" })).status).toBe(200);
    await eventually(async () => (await listed("--dead")).length === 1, "the dead letter", 20_000);
    const [dead] = await listed("--dead");
    expect(dead, served.output()).toMatchObject({ gateway: "whatsapp", thread: USER, status: "dead" });
    expect(dead?.reason).toContain("131047");
    expect(fake.sent).toHaveLength(1);

    // The user writes again (the window is open); the operator resends the lost reply.
    fake.windowClosed.delete(USER);
    const retried = await outbox("retry", String(dead?.id));
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toContain(`piece ${dead?.id} (whatsapp ${USER}) back in the queue`);
    // The running service's sender picks it up on its own (idle poll), no restart.
    await eventually(() => fake.sent.length === 2, "the retried reply delivered", 20_000);
    expect(fake.sent[1]).toMatchObject({ to: USER, type: "text" });
    expect(fake.sent[1]?.text).toBe(fake.sent[0]?.text);
    expect(fake.sent[1]?.text).toContain("are you there");
    expect(fake.statusDeliveries).toHaveLength(1);
    await eventually(async () => (await listed()).length === 0, "nothing pending or dead", 10_000);
    const again = await outbox("retry", String(dead?.id));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`piece ${dead?.id} is sent, not dead: nothing to retry`);
  }, 60_000);
});

describe("agentsvc start: a chat page whose store is a declared SQLite datasource", () => {
  it("starts with it and keeps the page's turns in database.path, not the default file; its history reads them back", async () => {
    const res = await fetch(`${served.url}/chat/api/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "kept in pages", conversationId: "c1" }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(res.status, served.output()).toBe(200);
    expect(((await res.json()) as { output: string }).output).toContain("kept in pages");
    expect(existsSync(join(dir, "data/pages.db"))).toBe(true);
    expect(existsSync(join(dir, "data/chat.db"))).toBe(false);
    const history = (await (await fetch(`${served.url}/chat/api/history?conversationId=c1`)).json()) as {
      messages: { content?: unknown }[];
    };
    expect(JSON.stringify(history.messages)).toContain("kept in pages");
  }, 30_000);
});
