// `agentsvc outbox` against a running server and the WhatsApp fake: a reply Meta accepted and then
// reported failed (131047, the 24-hour window had closed) is a dead letter; the operator lists it,
// retries it once the user has written again, and the running server delivers it.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { FakeWhatsApp } from "@agentsvc/testkit";
import { type ProjectServer, startProjectServer } from "@agentsvc/server/testing";
import { eventually } from "@agentsvc/testkit/session";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkPackages, run, tempDir, writeFiles } from "./helpers.js";

const env = {
  WA_ACCESS_TOKEN: "tok",
  WA_PHONE_NUMBER_ID: "1065",
  WA_APP_SECRET: "app-secret",
  WA_VERIFY_TOKEN: "vt",
};
const USER = "15550001";
let root: string;
let fake: FakeWhatsApp;
let server: ProjectServer;

interface Listed {
  id: number;
  gateway: string;
  thread: string;
  status: string;
  attempts: number;
  reason: string | null;
}

const list = async (...args: string[]): Promise<Listed[]> => {
  const r = await run(["outbox", "list", "--dir", root, "--json", ...args], { env });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Listed[];
};

beforeAll(async () => {
  root = tempDir("agentsvc-outbox-");
  writeFiles(root, {
    "package.json": JSON.stringify({ name: "outbox-fixture", private: true, type: "module" }),
    "agents/bot.mjs": `import { defineAgent } from "@agentsvc/agent-core";\nexport default defineAgent({ name: "bot", model: { provider: "demo" }, memory: { type: "window" } });\n`,
    "gateways/whatsapp.yaml":
      "type: whatsapp\naccessTokenEnvVar: WA_ACCESS_TOKEN\nphoneNumberIdEnvVar: WA_PHONE_NUMBER_ID\nappSecretEnvVar: WA_APP_SECRET\nverifyTokenEnvVar: WA_VERIFY_TOKEN\n",
  });
  linkPackages(root, {
    "@agentsvc/agent-core": "packages/agent-core",
    "@agentsvc/gateway-whatsapp": "packages/gateway-whatsapp",
  });
  fake = await FakeWhatsApp.start({
    appSecret: env.WA_APP_SECRET,
    accessToken: env.WA_ACCESS_TOKEN,
    phoneNumberId: env.WA_PHONE_NUMBER_ID,
    verifyToken: env.WA_VERIFY_TOKEN,
  });
  server = await startProjectServer(root, {
    env,
    patchGateway: (entry) => ({ ...entry, apiBaseUrl: fake.url }),
  });
  fake.webhookUrl = server.webhookUrl("whatsapp");
}, 60_000);

afterAll(async () => {
  await server?.close();
  await fake?.close();
});

describe("agentsvc outbox against a running server", () => {
  it("lists a reply the platform reported undelivered as dead with its reason, retries it, and the server delivers it", async () => {
    fake.windowClosed.add(USER);
    expect((await fake.deliverText({ from: USER, text: "are you there", id: "wamid.in1" })).status).toBe(200);
    await eventually(async () => (await list("--dead")).length === 1, "the dead letter", 15_000);
    const [dead] = await list("--dead");
    expect(dead).toMatchObject({ gateway: "whatsapp", thread: USER, status: "dead" });
    expect(dead?.reason).toContain("131047");
    expect(fake.sent).toHaveLength(1);

    // The user writes again (the window is open); the operator resends the lost reply.
    fake.windowClosed.delete(USER);
    const retried = await run(["outbox", "retry", String(dead?.id), "--dir", root], { env });
    expect(retried).toMatchObject({ code: 0, stderr: "" });
    expect(retried.stdout).toContain(`piece ${dead?.id} (whatsapp ${USER}) back in the queue`);
    // The running server's sender picks it up on its own (idle poll), no restart.
    await eventually(() => fake.sent.length === 2, "the retried reply delivered", 15_000);
    expect(fake.sent[1]).toMatchObject({ to: USER, type: "text" });
    expect(fake.sent[1]?.text).toBe(fake.sent[0]?.text);
    expect(fake.statusDeliveries).toHaveLength(1);
    await eventually(async () => (await list()).length === 0, "nothing pending or dead", 5_000);
    const again = await run(["outbox", "retry", String(dead?.id), "--dir", root], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`piece ${dead?.id} is sent, not dead: nothing to retry`);
  });
});

describe("agentsvc outbox on a stopped project's store", () => {
  it("prints a table, drops a dead piece, refuses a sent one and a bad command line", async () => {
    const dir = tempDir("agentsvc-outbox-drop-");
    writeFiles(dir, {
      "agents/bot.mjs": `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
    });
    mkdirSync(join(dir, "data"));
    const db = ChatDb.open({ appRoot: dir, path: "data/agentsvc.db" });
    const piece = (thread: string, key: string) => ({
      gateway: "slack",
      thread,
      idemKey: key,
      kind: "text" as const,
      payload: { text: key },
    });
    const [a, b, c] = await db.outbox.enqueue([piece("C1:1", "a"), piece("C2:2", "b"), piece("C3:3", "c")]);
    await db.outbox.markDead(a as number, "403 not_in_channel");
    await db.outbox.markSent(c as number, "ts");
    db.close();

    const table = await run(["outbox", "list", "--dir", dir]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^id\s+gateway\s+thread\s+kind\s+status\s+attempts\s+created\s+reason$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 5))).toEqual([
      [String(a), "slack", "C1:1", "text", "dead"],
      [String(b), "slack", "C2:2", "text", "pending"],
    ]);
    expect(lines[1]).toMatch(/403 not_in_channel$/);

    expect(await run(["outbox", "drop", String(a), "--dir", dir])).toMatchObject({ code: 0 });
    expect((await run(["outbox", "drop", String(c), "--dir", dir])).stderr).toContain("was sent already");
    expect((await run(["outbox", "drop", "999", "--dir", dir])).code).toBe(1);
    expect((await run(["outbox", "list", "--dead", "--dir", dir])).stdout).toBe(
      "no pending or dead pieces\n",
    );
    expect((await run(["outbox", "retry", "--dir", dir])).code).toBe(2);
    expect((await run(["outbox", "resend", "--dir", dir])).stderr).toContain("expected list, retry or drop");
  });
});

describe("agentsvc outbox --gateway", () => {
  it("retry --all-dead --gateway slack requeues only Slack's dead pieces, and list --gateway shows only that gateway", async () => {
    const dir = tempDir("agentsvc-outbox-gateway-");
    writeFiles(dir, {
      "agents/bot.mjs": `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
    });
    mkdirSync(join(dir, "data"));
    const db = ChatDb.open({ appRoot: dir, path: "data/agentsvc.db" });
    const piece = (gateway: string, key: string) => ({
      gateway,
      thread: `${gateway}-thread`,
      idemKey: key,
      kind: "text" as const,
      payload: { text: key },
    });
    const [slack, telegram] = await db.outbox.enqueue([piece("slack", "s"), piece("telegram", "t")]);
    await db.outbox.markDead(slack as number, "403 not_in_channel");
    await db.outbox.markDead(telegram as number, "403 bot was blocked by the user");
    db.close();

    const listed = await run(["outbox", "list", "--dead", "--gateway", "telegram", "--json", "--dir", dir]);
    expect((JSON.parse(listed.stdout) as Listed[]).map((r) => r.id)).toEqual([telegram]);

    const retried = await run(["outbox", "retry", "--all-dead", "--gateway", "slack", "--dir", dir]);
    expect(retried).toMatchObject({ code: 0, stderr: "" });
    expect(retried.stdout).toBe(`1 dead piece back in the queue: ${slack}\n`);
    const after = JSON.parse((await run(["outbox", "list", "--json", "--dir", dir])).stdout) as Listed[];
    expect(after.map((r) => [r.gateway, r.status])).toEqual([
      ["slack", "pending"],
      ["telegram", "dead"],
    ]);
  });
});
