// The chat page refuses an identity a gateway of the same service runs as. Memory, runs and
// approvals are keyed by user id alone: a channel adapter's runs have its entry name (`hooks`), a
// push gateway's its registry name (`pigeon`, the type a third-party adapter declares), with
// conversation = the platform's thread. `agentsvc check` refuses such accounts in the project's
// files; the server, which takes any Project (one built in code), tells the page every registered
// gateway's name itself.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadProject, type Project } from "@agentsvc/config-schema";
import pino from "pino";
import { afterEach, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";

// A third-party adapter written outside packages/ against the adapter contract, with its own fake.
const PIGEON = resolve(import.meta.dirname, "../../../tooling/install-test/fixtures/agentsvc-gateway-pigeon");
const PIGEON_PKG = "@acme/agentsvc-gateway-pigeon";

interface PigeonFake {
  url: string;
  token: string;
  close(): Promise<void>;
}

const passwords = {
  ADA_PASSWORD: "correct horse",
  HOOKS_PASSWORD: "battery staple",
  PIGEON_PASSWORD: "tr0ub4dor",
};
let root: string | undefined;
let server: RunningServer | undefined;
let pigeon: PigeonFake | undefined;

afterEach(async () => {
  await server?.shutdown();
  server = undefined;
  await pigeon?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/**
 * A page with accounts `ada`, `hooks` and `pigeon`; an `http` channel adapter entry named `hooks`;
 * the third-party Pigeon adapter (installed in the project as npm would), type `pigeon`.
 */
async function project(pigeonUrl: string): Promise<Project> {
  // Beside the fixtures: the adapters (and Pigeon's valibot) resolve from the project folder up.
  root = mkdtempSync(resolve(import.meta.dirname, "fixtures/.page-gateway-users-"));
  for (const d of ["agents", "gateways"]) mkdirSync(join(root, d), { recursive: true });
  cpSync(PIGEON, join(root, "node_modules", PIGEON_PKG), { recursive: true });
  const files: Record<string, string> = {
    "package.json": JSON.stringify({ name: "gateway-users", private: true, type: "module" }),
    "agents/ops.mjs": `export default { kind: "agent", name: "ops", model: { provider: "demo", script: [{ text: "ok" }] } };\n`,
    "gateways/hooks.yaml": "type: http\nsecretEnvVar: HOOKS_SECRET\n",
    "gateways/pigeon.yaml": `type: "${PIGEON_PKG}"\ntokenEnvVar: PIGEON_TOKEN\napiBaseUrl: ${pigeonUrl}\n`,
    "gateways/web.yaml":
      "exposes: webui\npath: /chat\nusers:\n  - username: ada\n    passwordEnvVar: ADA_PASSWORD\n",
  };
  for (const [file, text] of Object.entries(files)) writeFileSync(join(root, file), text);
  const loaded = await loadProject(root);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => `${e.file}: ${e.path}: ${e.message}`).join("\n"));
  // The accounts named like the gateways, added past the files' check.
  const named = [
    { username: "hooks", displayName: "hooks", passwordEnvVar: "HOOKS_PASSWORD" },
    { username: "pigeon", displayName: "pigeon", passwordEnvVar: "PIGEON_PASSWORD" },
  ];
  const exposures = loaded.project.exposures.map((e) =>
    e.exposes === "webui" ? { ...e, users: [...(e.users ?? []), ...named] } : e,
  );
  return { ...loaded.project, exposures };
}

async function conversationsAs(base: string, username: string, password: string): Promise<Response> {
  const login = await fetch(`${base}/chat/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  expect(login.status).toBe(200);
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  return fetch(`${base}/chat/api/conversations`, { headers: { cookie } });
}

it("answers 403 identity_reserved to accounts named like a channel adapter entry or a third-party adapter's type, and serves other accounts", async () => {
  const { startPigeonFake } = (await import(join(PIGEON, "fake.js"))) as {
    startPigeonFake(): Promise<PigeonFake>;
  };
  pigeon = await startPigeonFake();
  const env = { ...passwords, HOOKS_SECRET: "hooks-secret-7f1c", PIGEON_TOKEN: pigeon.token };
  server = await startServer(await project(pigeon.url), {
    port: 0,
    env,
    interactive: false,
    logger: pino({ level: "silent" }),
  });
  expect(server.gateways.map((g) => g.name).sort()).toEqual(["hooks", "pigeon"]);
  const answers = [];
  for (const [name, password] of [
    ["hooks", passwords.HOOKS_PASSWORD],
    ["pigeon", passwords.PIGEON_PASSWORD],
  ] as const) {
    const res = await conversationsAs(server.url, name, password);
    answers.push({
      name,
      status: res.status,
      code: ((await res.json()) as { error?: { code: string } }).error?.code,
    });
  }
  expect(answers).toEqual([
    { name: "hooks", status: 403, code: "identity_reserved" },
    { name: "pigeon", status: 403, code: "identity_reserved" },
  ]);
  expect((await conversationsAs(server.url, "ada", passwords.ADA_PASSWORD)).status).toBe(200);
}, 60_000);
