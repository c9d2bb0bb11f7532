// A schedule to a WhatsApp number whose 24-hour customer service window is closed: Meta accepts the
// text and then reports it failed by a status webhook with error 131047 (the WhatsApp fake follows
// https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes), so the tick ends
// dead with that error, visible in the store's last error and on /metrics, never as delivered.
// A schedule naming an approved template (to.templateName, to.templateLanguage) sends its reply as
// the template's body parameter (https://developers.facebook.com/docs/whatsapp/cloud-api/guides/send-message-templates),
// which Meta delivers outside the window too: that tick is delivered.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { eventually, FakeWhatsApp } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProjectServer, startProjectServer } from "../src/testing.js";

const env = {
  WA_ACCESS_TOKEN: "tok",
  WA_PHONE_NUMBER_ID: "1065",
  WA_APP_SECRET: "app-secret",
  WA_VERIFY_TOKEN: "vt",
};
const USER = "15550004242";
const OTHER = "15550004343";
let root: string;
let fake: FakeWhatsApp;
let server: ProjectServer;

beforeAll(async () => {
  fake = await FakeWhatsApp.start({
    appSecret: env.WA_APP_SECRET,
    accessToken: env.WA_ACCESS_TOKEN,
    phoneNumberId: env.WA_PHONE_NUMBER_ID,
    verifyToken: env.WA_VERIFY_TOKEN,
  });
  fake.windowClosed.add(USER);
  fake.windowClosed.add(OTHER);
  root = mkdtempSync(resolve(import.meta.dirname, "fixtures/.schedules-wa-"));
  for (const d of ["agents", "gateways", "schedules", "node_modules/@agentsvc"])
    mkdirSync(join(root, d), { recursive: true });
  symlinkSync(
    resolve(import.meta.dirname, "../../../packages/gateway-whatsapp"),
    join(root, "node_modules/@agentsvc/gateway-whatsapp"),
    "dir",
  );
  writeFileSync(
    join(root, "package.json"),
    JSON.stringify({ name: "schedules-wa-fixture", private: true, type: "module" }),
  );
  writeFileSync(
    join(root, "agents/ops.mjs"),
    `import { defineAgent } from "@agentsvc/agent-core";\nexport default defineAgent({ name: "ops", model: { provider: "demo", script: [{ text: "Your weekly report.\\n\\nThree issues are open." }] } });\n`,
  );
  writeFileSync(
    join(root, "gateways/whatsapp.yaml"),
    "type: whatsapp\naccessTokenEnvVar: WA_ACCESS_TOKEN\nphoneNumberIdEnvVar: WA_PHONE_NUMBER_ID\nappSecretEnvVar: WA_APP_SECRET\nverifyTokenEnvVar: WA_VERIFY_TOKEN\n",
  );
  writeFileSync(
    join(root, "schedules/weekly.yaml"),
    `every: 10s\nprompt: Write the weekly report\nto: { gateway: whatsapp, thread: "${USER}" }\n`,
  );
  writeFileSync(
    join(root, "schedules/templated.yaml"),
    `every: 10s\nprompt: Write the weekly report\nto: { gateway: whatsapp, thread: "${OTHER}", templateName: weekly_report, templateLanguage: en_US }\n`,
  );
  server = await startProjectServer(root, {
    env,
    patchGateway: (entry) => ({ ...entry, apiBaseUrl: fake.url }) as never,
  });
  fake.webhookUrl = server.webhookUrl("whatsapp");
});

afterAll(async () => {
  await server?.close();
  await fake?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("a schedule to WhatsApp outside the 24-hour window", () => {
  it("ends dead with Meta's 131047 error, never delivered", async () => {
    const lastError = async () => {
      const db = ChatDb.open({ appRoot: root, path: "data/agentsvc.db" });
      try {
        return {
          error: await db.scheduleTicks.lastError("weekly"),
          last: await db.scheduleTicks.last("weekly"),
        };
      } finally {
        db.close();
      }
    };
    await eventually(async () => (await lastError()).error !== undefined, "a dead tick", 30_000);
    const { error, last } = await lastError();
    expect(error).toMatchObject({ outcome: "dead", error: expect.stringContaining("131047") });
    expect(last?.outcome).not.toBe("delivered");
    expect(fake.sent.some((m) => m.to === USER && m.type === "text")).toBe(true);
  });

  it("with an approved template the reply is its body parameter, on one line, and the tick is delivered", async () => {
    const last = async () => {
      const db = ChatDb.open({ appRoot: root, path: "data/agentsvc.db" });
      try {
        return await db.scheduleTicks.last("templated");
      } finally {
        db.close();
      }
    };
    await eventually(
      async () => (await last())?.outcome === "delivered",
      "a delivered templated tick",
      30_000,
    );
    const sent = fake.sent.filter((m) => m.to === OTHER);
    expect(sent.map((m) => m.type)).not.toContain("text");
    expect(sent[0]).toMatchObject({
      type: "template",
      template: { name: "weekly_report", language: "en_US" },
      text: "Your weekly report. Three issues are open.",
    });
  });
});
