// A schedule into a chat page user's conversation, through the built bin: `agentsvc hash-password`
// makes the account's `passwordHash`, a 6-field `cron` schedule names an agent other than the root
// agent (`agent: writer`) and `to: { page, user, conversation }`; its turns show in that account's
// conversation, an `every` schedule ticks on the root agent, and one with `enabled: false` never runs.
// A schedule's `timezone` reads its cron fields in that zone; `catchUp: last` runs the tick missed
// while the service was down (the default does not). `budgets.perAgent` refuses the turns of an
// agent without a limit of its own in `budgets.agents` (the writer's and the root agent's run).
// Schedules to a WhatsApp entry, whose numbers' 24-hour windows are closed in the fake: one naming
// `to.templateName` / `templateLanguage` is sent as that template; a plain one's text fails (Meta's
// 131047) and the entry's `templateName` is sent to reopen the conversation.
import { ChatDb } from "@agentsvc/chat-store";
import { eventually, FakeWhatsApp } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBinAsync, type Served, serveBin } from "./child.js";
import { linkPackages, tempDir, writeFiles } from "./helpers.js";

// UTC+5 all year (no daylight saving): a cron hour read in UTC instead is five hours off.
const ZONE = "Asia/Karachi";
const hourIn = (zone: string, at: number) =>
  Number(new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", hourCycle: "h23" }).format(at));
const DAY_MS = 86_400_000;
const WA = {
  WA_ACCESS_TOKEN: "tok",
  WA_PHONE_NUMBER_ID: "1065",
  WA_APP_SECRET: "app-secret",
  WA_VERIFY_TOKEN: "vt",
};
const [PLAIN, TEMPLATED] = ["15550004242", "15550004343"];

const agent = (name: string, text: string) =>
  `export default { kind: "agent", name: "${name}", model: { provider: "demo", script: [{ text: "${text}" }] } };\n`;

describe("agentsvc start: a schedule to a chat page user's conversation", () => {
  let served: Served;
  let dir: string;
  let whatsapp: FakeWhatsApp;

  beforeAll(async () => {
    whatsapp = await FakeWhatsApp.start({
      appSecret: WA.WA_APP_SECRET,
      accessToken: WA.WA_ACCESS_TOKEN,
      phoneNumberId: WA.WA_PHONE_NUMBER_ID,
      verifyToken: WA.WA_VERIFY_TOKEN,
    });
    whatsapp.windowClosed.add(PLAIN);
    whatsapp.windowClosed.add(TEMPLATED);
    const now = hourIn(ZONE, Date.now());
    const zoned = `${now},${(now + 1) % 24}`;
    const hashed = await runBinAsync([
      "hash-password",
      "--password=digest-reader-pw",
      "--iterations",
      "1000",
    ]);
    expect(hashed.code, hashed.stderr).toBe(0);
    dir = writeFiles(tempDir("agentsvc-page-schedule-"), {
      // The root agent sorts first; the schedule names the other one.
      "agents/assistant.mjs": agent("assistant", "From the root agent."),
      "agents/writer.mjs": agent("writer", "A digest from the writer."),
      "agents/critic.mjs": agent("critic", "From the critic."),
      "gateways/web.yaml": [
        "exposes: webui",
        "path: /chat",
        "users:",
        "  - username: ada",
        `    passwordHash: "${hashed.stdout.trim()}"`,
        "",
      ].join("\n"),
      // Every agent's turns are refused (cost 0) but those of the two with limits of their own.
      "agentsvc.config.yaml": [
        "rootAgent: assistant",
        "budgets:",
        "  perAgent: { day: { cost: 0 } }",
        "  agents:",
        "    assistant: { day: { tokens: 1000000 } }",
        "    writer: { day: { tokens: 1000000 } }",
        "",
      ].join("\n"),
      "schedules/digest.yaml":
        "cron: '*/2 * * * * *'\nprompt: Write the digest\nagent: writer\nto: { page: web, user: ada, conversation: digest }\n",
      "schedules/tenly.yaml":
        "every: 10s\nprompt: Every ten seconds\nto: { page: web, user: ada, conversation: every }\n",
      "schedules/off.yaml":
        "cron: '* * * * * *'\nprompt: Never sent\nenabled: false\nto: { page: web, user: ada, conversation: off }\n",
      "schedules/critique.yaml":
        "cron: '* * * * * *'\nprompt: Critique\nagent: critic\nto: { page: web, user: ada, conversation: critique }\n",
      // Every other second in this hour and the next of ZONE: in UTC's hours, no tick for hours.
      "schedules/zoned.yaml": `cron: '*/2 * ${zoned} * * *'\ntimezone: ${ZONE}\nprompt: In Karachi time\nto: { page: web, user: ada, conversation: zoned }\n`,
      // Daily; both last ticked three days ago (seeded below): only catchUp: last runs the missed tick.
      "schedules/nightly.yaml":
        "cron: '0 0 3 * * *'\ncatchUp: last\nprompt: Nightly digest\nto: { page: web, user: ada, conversation: nightly }\n",
      "schedules/nightly-skip.yaml":
        "cron: '0 0 3 * * *'\nprompt: Skipped digest\nto: { page: web, user: ada, conversation: nightly-skip }\n",
      "gateways/whatsapp.yaml": `type: whatsapp\naccessTokenEnvVar: WA_ACCESS_TOKEN\nphoneNumberIdEnvVar: WA_PHONE_NUMBER_ID\nappSecretEnvVar: WA_APP_SECRET\nverifyTokenEnvVar: WA_VERIFY_TOKEN\napiBaseUrl: ${whatsapp.url}\ntemplateName: reopen_chat\n`,
      "schedules/wa-plain.yaml": `cron: '*/2 * * * * *'\nprompt: Plain report\nto: { gateway: whatsapp, thread: "${PLAIN}" }\n`,
      "schedules/wa-templated.yaml": `cron: '*/2 * * * * *'\nprompt: Templated report\nto: { gateway: whatsapp, thread: "${TEMPLATED}", templateName: weekly_report, templateLanguage: en_US }\n`,
    });
    linkPackages(dir, { "@agentsvc/gateway-whatsapp": "packages/gateway-whatsapp" });
    const db = await ChatDb.open({ appRoot: dir, path: "./data/chat.db" });
    const threeDaysAgo = Math.floor(Date.now() / DAY_MS - 3) * DAY_MS + 3 * 3_600_000;
    for (const schedule of ["nightly", "nightly-skip"]) {
      await db.scheduleTicks.claim({ schedule, tickAt: threeDaysAgo, instance: "before" });
      await db.scheduleTicks.finish(schedule, threeDaysAgo, "delivered");
    }
    await db.close();
    served = await serveBin(["start", dir, "--port", "0"], WA);
    // Meta's status webhooks (a text refused outside the window) go to the service's route.
    whatsapp.webhookUrl = `${served.url}/webhooks/whatsapp`;
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    await whatsapp?.close();
  });

  it("a schedule's to.templateName sends its reply as that template; a plain text refused outside the window gets the entry's templateName to reopen the conversation", async () => {
    const sentTo = (to: string) => whatsapp.sent.filter((m) => m.to === to);
    await eventually(() => sentTo(TEMPLATED).length > 0, "the templated tick", 20_000);
    expect(sentTo(TEMPLATED)[0]).toMatchObject({
      type: "template",
      template: { name: "weekly_report", language: "en_US" },
      text: "From the root agent.",
    });
    await eventually(
      () => sentTo(PLAIN).some((m) => m.type === "template"),
      "the re-engagement template",
      20_000,
    );
    expect(sentTo(PLAIN).find((m) => m.type === "template")).toMatchObject({
      template: { name: "reopen_chat", language: "en_US" },
    });
    // The text went first and failed (131047): the template only reopens the window.
    expect(sentTo(PLAIN)[0]?.type).toBe("text");
  }, 60_000);

  it("signs in with the hashed password; the writer's scheduled turns show in ada's digest conversation, the every-10s schedule's on the root agent, the zoned one's in Karachi hours, the missed nightly tick with catchUp: last only; the disabled schedule never runs, the critic's are refused by perAgent", async () => {
    const api = `${served.url}/chat/api`;
    const login = (password: string) =>
      fetch(`${api}/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "ada", password }),
      });
    expect((await login("not-it")).status).toBe(401);
    const ok = await login("digest-reader-pw");
    expect(ok.status).toBe(200);
    const cookie = (ok.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const history = async (conversationId: string) => {
      const res = await fetch(`${api}/history?conversationId=${conversationId}`, { headers: { cookie } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { messages: { role: string; content: string }[] }).messages.map(
        (m) => `${m.role}: ${m.content}`,
      );
    };
    await eventually(
      async () => (await history("digest")).length >= 4,
      "two ticks in the conversation",
      30_000,
    );
    expect((await history("digest")).slice(0, 4)).toEqual([
      "user: Write the digest",
      "assistant: A digest from the writer.",
      "user: Write the digest",
      "assistant: A digest from the writer.",
    ]);
    // `every` (at least 10 s): its first tick, on the root agent (no `agent` named).
    await eventually(async () => (await history("every")).length >= 2, "the every-10s tick", 40_000);
    expect((await history("every")).slice(0, 2)).toEqual([
      "user: Every ten seconds",
      "assistant: From the root agent.",
    ]);
    // Ticks of the every-second disabled schedule would have come by now.
    expect(await history("off")).toEqual([]);
    // timezone: the hour field read in Karachi time (in UTC's, nothing for hours).
    await eventually(async () => (await history("zoned")).length >= 2, "a zoned tick", 20_000);
    expect((await history("zoned")).slice(0, 2)).toEqual([
      "user: In Karachi time",
      "assistant: From the root agent.",
    ]);
    // catchUp: last ran the tick missed since three days ago at start; the default (none) did not.
    expect(await history("nightly")).toEqual(["user: Nightly digest", "assistant: From the root agent."]);
    expect(await history("nightly-skip")).toEqual([]);
    // perAgent: the critic has no limit of its own (the writer's turns above ran under agents.writer).
    expect((await history("critique")).length).toBeGreaterThan(0);
    expect((await history("critique")).filter((m) => m.startsWith("assistant:"))).toEqual([]);
    type Row = { name: string; state: string; lastOutcome: string | null; lastError: string | null };
    let rows: Row[] = [];
    // lastOutcome is the newest tick's: one running now (every second for critique) is still
    // claimed; read the list when the newest of digest and critique have ended.
    await eventually(
      async () => {
        const list = await runBinAsync(["schedules", "list", "--json", "--dir", dir]);
        expect(list.code, list.stderr).toBe(0);
        rows = JSON.parse(list.stdout) as Row[];
        const open = (name: string) =>
          ["claimed", "recorded"].includes(rows.find((r) => r.name === name)?.lastOutcome ?? "");
        return !open("digest") && !open("critique");
      },
      "the newest digest and critique ticks ended",
      20_000,
    );
    expect(rows.find((r) => r.name === "off")).toMatchObject({ state: "disabled", lastOutcome: null });
    expect(rows.find((r) => r.name === "digest")?.lastOutcome).toBe("delivered");
    expect(rows.find((r) => r.name === "critique")).toMatchObject({
      lastOutcome: "failed",
      lastError: "the turn ended failed (budget_exceeded)",
    });
  }, 60_000);
});
