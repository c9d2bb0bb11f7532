// `agentsvc pairing` end to end on PostgreSQL with two server instances: an unknown WhatsApp sender
// under `dmPolicy: pairing` gets a code from instance A, the owner approves it with the CLI while
// both run, and the sender's next message, taken by instance B, is answered without a restart.
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { type ProjectServer, startProjectServer } from "@agentsvc/server/testing";
import { FakeWhatsApp } from "@agentsvc/testkit";
import { eventually } from "@agentsvc/testkit/session";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkPackages, run, tempDir, writeFiles } from "./helpers.js";

const USER = "15550009876";
const secrets = {
  WA_ACCESS_TOKEN: "tok",
  WA_PHONE_NUMBER_ID: "1065",
  WA_APP_SECRET: "app-secret",
  WA_VERIFY_TOKEN: "vt",
};

interface Listed {
  pending: { code: string; gateway: string; user: string; expiresAt: string }[];
  approved: { gateway: string; user: string; code: string | null }[];
}

describe.skipIf(postgresMissing)("agentsvc pairing across two instances on PostgreSQL", () => {
  let pg: TestPostgres;
  let env: Record<string, string>;
  let root: string;
  let fake: FakeWhatsApp;
  let a: ProjectServer;
  let b: ProjectServer;

  const cli = (...args: string[]) => run(["pairing", ...args, "--dir", root], { env });
  const list = async (): Promise<Listed> => {
    const r = await cli("list", "--json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as Listed;
  };

  beforeAll(async () => {
    pg = await startPostgres();
    env = { ...secrets, DATABASE_URL: await pg.createDatabase() };
    root = tempDir("agentsvc-pairing-");
    writeFiles(root, {
      "package.json": JSON.stringify({ name: "pairing-fixture", private: true, type: "module" }),
      "agents/bot.mjs": `import { defineAgent } from "@agentsvc/agent-core";\nexport default defineAgent({ name: "bot", model: { provider: "demo" }, memory: { type: "window" } });\n`,
      "agentsvc.config.yaml":
        "datasources:\n  main:\n    type: postgres\n    urlEnvVar: DATABASE_URL\nstore: main\n",
      "gateways/whatsapp.yaml":
        "type: whatsapp\naccessTokenEnvVar: WA_ACCESS_TOKEN\nphoneNumberIdEnvVar: WA_PHONE_NUMBER_ID\nappSecretEnvVar: WA_APP_SECRET\nverifyTokenEnvVar: WA_VERIFY_TOKEN\ndmPolicy: pairing\n",
    });
    linkPackages(root, {
      "@agentsvc/agent-core": "packages/agent-core",
      "@agentsvc/gateway-whatsapp": "packages/gateway-whatsapp",
    });
    fake = await FakeWhatsApp.start({
      appSecret: secrets.WA_APP_SECRET,
      accessToken: secrets.WA_ACCESS_TOKEN,
      phoneNumberId: secrets.WA_PHONE_NUMBER_ID,
      verifyToken: secrets.WA_VERIFY_TOKEN,
    });
    const patchGateway = (entry: object) => ({ ...entry, apiBaseUrl: fake.url }) as never;
    a = await startProjectServer(root, { env, patchGateway });
    b = await startProjectServer(root, { env, patchGateway });
  }, 90_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await fake?.close();
    await pg?.stop();
  });

  it("a code from instance A, approved with the CLI, lets the sender's next message through instance B; revoke and deny", async () => {
    fake.webhookUrl = a.webhookUrl("whatsapp");
    expect((await fake.deliverText({ from: USER, text: "hello?", id: "wamid.pair1" })).status).toBe(200);
    await eventually(() => fake.sent.length === 1, "the pairing answer", 15_000);
    const answer = fake.sent[0]?.text ?? "";
    const code = /pairing code: ([A-Z2-9]{8})/.exec(answer)?.[1] as string;
    expect(code, answer).toBeDefined();

    const before = await list();
    expect(before.pending).toMatchObject([{ code, gateway: "whatsapp", user: USER }]);
    expect(before.approved).toEqual([]);

    const approved = await cli("approve", code.toLowerCase());
    expect(approved.stderr).toBe("");
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`approved ${USER} (Test User) on whatsapp`);
    expect(await list()).toMatchObject({
      pending: [],
      approved: [{ gateway: "whatsapp", user: USER, code }],
    });

    fake.webhookUrl = b.webhookUrl("whatsapp");
    expect((await fake.deliverText({ from: USER, text: "now?", id: "wamid.pair2" })).status).toBe(200);
    await eventually(() => fake.sent.length >= 2, "the agent's answer", 15_000);
    expect(fake.sent[1]?.to).toBe(USER);
    expect(fake.sent[1]?.text).not.toContain("pairing code");

    const again = await cli("deny", code);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no pending pairing code ${code}`);

    const revoked = await cli("revoke", "whatsapp", USER);
    expect(revoked.code).toBe(0);
    expect((await list()).approved).toEqual([]);
    const twice = await cli("revoke", "whatsapp", USER);
    expect(twice.code).toBe(1);
  }, 60_000);

  it("names the verbs and the arguments each needs", async () => {
    expect((await cli("accept")).stderr).toMatch(/expected list, approve, deny or revoke \(got "accept"\)/);
    expect((await cli("approve")).stderr).toContain("approve <code>");
    expect((await cli("revoke", "whatsapp")).stderr).toContain("revoke <gateway> <user>");
  });
});
