// The chat page's accounts are seeded when its API is first asked (PBKDF2 neither before listen nor
// beside the first answer): a sign-in sent the moment the server listens must wait for its account,
// not be refused for lack of it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, expect, it } from "vitest";
import { type ProjectServer, startProjectServer } from "../src/testing.js";

const env = { ADA_PASSWORD: "correct horse", BOB_PASSWORD: "battery staple" };
let root: string | undefined;
let server: ProjectServer | undefined;

afterEach(async () => {
  await server?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

function signIn(url: string, username: string, password: string): Promise<Response> {
  return fetch(`${url}/chat/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
}

function fixture(): string {
  root = mkdtempSync(resolve(import.meta.dirname, "fixtures/.account-seeding-"));
  for (const d of ["agents", "gateways"]) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(
    join(root, "package.json"),
    JSON.stringify({ name: "seeding-fixture", private: true, type: "module" }),
  );
  writeFileSync(
    join(root, "agents/ops.mjs"),
    `export default { kind: "agent", name: "ops", model: { provider: "demo", script: [{ text: "ok" }] } };\n`,
  );
  writeFileSync(
    join(root, "gateways/web.yaml"),
    "exposes: webui\npath: /chat\nusers:\n  - username: ada\n    passwordEnvVar: ADA_PASSWORD\n  - username: bob\n    passwordEnvVar: BOB_PASSWORD\n",
  );
  return root;
}

/** The usernames in the page's store (its default file), read after the server stopped. */
function storedAccounts(dir: string): string[] {
  const db = new DatabaseSync(join(dir, "data/chat.db"), { readOnly: true });
  try {
    return (
      db.prepare("SELECT username FROM accounts ORDER BY username").all() as { username: string }[]
    ).map((r) => r.username);
  } finally {
    db.close();
  }
}

it("answers a sign-in sent as soon as the server listens once the account is seeded", async () => {
  server = await startProjectServer(fixture(), { env });
  // Sent at once, in parallel: each PBKDF2 hash of 600,000 rounds is still running on a crypto thread.
  const [ada, bob, wrong] = await Promise.all([
    signIn(server.url, "ada", env.ADA_PASSWORD),
    signIn(server.url, "bob", env.BOB_PASSWORD),
    signIn(server.url, "ada", "not her password"),
  ]);
  expect([ada.status, bob.status, wrong.status]).toEqual([200, 200, 401]);
  expect(ada.headers.get("set-cookie")).toBeTruthy();
}, 60_000);

it("hashes no password until the chat API is first asked: a start that serves only other routes writes no account", async () => {
  const dir = fixture();
  server = await startProjectServer(dir, { env });
  // Shutdown waits for a seeding under way, so an account started at start-up would be stored now.
  await server.shutdown();
  expect(storedAccounts(dir)).toEqual([]);

  server = await startProjectServer(dir, { env });
  expect((await signIn(server.url, "bob", env.BOB_PASSWORD)).status).toBe(200);
  await server.shutdown();
  expect(storedAccounts(dir)).toEqual(["ada", "bob"]);
}, 60_000);
