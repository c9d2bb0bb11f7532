import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLOCK_ROWS, ROW_PACKAGES, type RowContext } from "./block-rows.js";
import { MEDIA_ROWS } from "./media-rows.js";
import { ADAPTER_ROWS } from "./adapter-rows.js";
import { CONNECTION_ROW_PACKAGES, CONNECTION_ROWS } from "./connection-rows.js";
import { type LocalRegistry, startLocalRegistry } from "../../registry/local-registry.js";
import { NPM_FLAGS, run, type Started, startServer, userHome } from "./outside.js";
import { packAll, repoRoot } from "../../registry/pack.js";

// One user's machine: a folder outside the workspace, the packed packages behind a private
// registry on 127.0.0.1, and plain npm (no workspace, no overrides).
const home = userHome("agentsvc-outside-");
const tarballs = join(home, "tarballs");
const globalPrefix = join(home, "global");
const app = join(home, "my-agent");
const appBin = join(app, "node_modules", ".bin", "agentsvc");
let registry: LocalRegistry;
// What the scaffolded project pulls in: the CLI, the server and what it composes; no gateway-http.
const NEEDED = [
  // session-core and webhook-kit build on it (the Gateway contract and the adapter helpers).
  "adapter-kit",
  "agent-core",
  "agent-routes",
  "chat-store",
  "cli",
  "config-schema",
  "gateway-cli",
  "mcp",
  // The server runs schedules/ entries with it.
  "scheduler",
  "server",
  "session-core",
  "store-schema",
  // The server reads webhook bodies with webhook-kit's bounded reader (a small package, no deps).
  "webhook-kit",
  "webui",
  "webui-page",
];
let packed: string[] = [];

const show = (r: { code: number; stdout: string; stderr: string }) =>
  `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

beforeAll(async () => {
  expect(home.startsWith(repoRoot)).toBe(false);
  packed = (await packAll(tarballs)).map((p) => p.name);
  registry = await startLocalRegistry(tarballs);
}, 240_000);

afterAll(async () => {
  await registry?.close();
  // Asynchronous: a synchronous delete of the installs blocks the worker past vitest's RPC timeout under load.
  await rm(home, { recursive: true, force: true });
}, 120_000);

describe("a project outside the workspace, installed with plain npm from the packed packages", () => {
  it("installs the CLI, scaffolds, installs the project's own dependencies and serves it", async () => {
    const scope = `--@agentsvc:registry=${registry.url}`;
    // The CLI as a user installs it globally (a temporary prefix stands in for the global folder).
    const cli = await run(
      "npm",
      ["install", "-g", "--prefix", globalPrefix, scope, ...NPM_FLAGS, "@agentsvc/cli"],
      home,
      // Killed at 120 s at the start of two whole runs at load 12-31 (#45); a minute alone.
      240_000,
    );
    expect(cli.code, show(cli)).toBe(0);

    const init = await run(join(globalPrefix, "bin", "agentsvc"), ["init", "my-agent"], home, 30_000);
    expect(init.code, show(init)).toBe(0);
    // The last lines are commands that work as printed.
    expect(init.stdout).toMatch(/cd my-agent\n\s+npm install\b.*\n\s+npx agentsvc dev\b/);

    // The project's package.json is used as scaffolded; only the registry scope is configured.
    writeFileSync(join(app, ".npmrc"), `@agentsvc:registry=${registry.url}\n`);
    const install = await run("npm", ["install", ...NPM_FLAGS], app, 240_000);
    expect(install.code, show(install)).toBe(0);
    const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
    expect(manifest.dependencies["@agentsvc/cli"]).toMatch(/^\^\d/);
    // npm 11's install-script review has nothing of agentsvc's to ask about (README "Native module,
    // no install script"): it read better-sqlite3's binding.gyp as `node-gyp rebuild` and listed it at
    // every later install. An npm without the review answers with a usage error: nothing to check.
    const review = await run("npm", ["install-scripts", "ls"], app, 60_000);
    if (review.code === 0) expect(review.stdout, show(review)).not.toContain("better-sqlite3");

    // Only what the project needs: no adapter package it has no entry for.
    expect(packed).toContain("@agentsvc/gateway-http");
    expect(existsSync(join(app, "node_modules/@agentsvc/gateway-http"))).toBe(false);
    expect(registry.requested).not.toContain("@agentsvc/gateway-http");
    expect(readdirSync(join(app, "node_modules/@agentsvc")).sort()).toEqual(NEEDED);

    const check = await run(appBin, ["check"], app, 60_000);
    expect(check.code, show(check)).toBe(0);
    expect(check.stdout).toContain("root agent assistant");

    const build = await run(appBin, ["build"], app, 60_000);
    expect(build.code, show(build)).toBe(0);
    expect(readFileSync(join(app, ".agentsvc/build/chat/index.html"), "utf8")).toContain("<title>my-agent");

    const server = await startServer(appBin, app);
    try {
      const res = await fetch(`${server.url}/agent/invoke`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: "hello from outside" }),
        signal: AbortSignal.timeout(15_000),
      });
      expect(res.status, server.output()).toBe(200);
      expect(((await res.json()) as { output: string }).output).toContain("hello from outside");
      const page = await fetch(`${server.url}/chat/index.html`, { signal: AbortSignal.timeout(15_000) });
      expect(page.status).toBe(200);
      expect(page.headers.get("content-security-policy")).toContain("script-src");
      expect(await page.text()).toContain("<title>my-agent");
    } finally {
      expect(await server.stop()).toBe(0);
    }
    // Two npm installs of up to 240 s each, beyond the package's 300 s per test.
  }, 600_000);

  it("fails to start a gateway entry whose package is not installed, naming the npm install command", async () => {
    expect(existsSync(appBin)).toBe(true);
    writeFileSync(join(app, "gateways/hook.yaml"), "type: http\nsecretEnvVar: HOOK_SECRET\n");
    try {
      const start = await run(appBin, ["start", ".", "--port", "0"], app, 60_000);
      expect(start.code, show(start)).toBe(1);
      expect(start.stderr).toContain("gateways/hook.yaml: type:");
      expect(start.stderr).toContain("npm install @agentsvc/gateway-http");
    } finally {
      rmSync(join(app, "gateways/hook.yaml"));
    }
  });
});

// What users run: the installed bin started once per documented configuration block, each row
// asserting the feature works (scraped, exported, answered), not only that the process starts.
describe("the installed agentsvc bin, once per documented configuration block", () => {
  beforeAll(async () => {
    expect(existsSync(appBin)).toBe(true);
    const packages = [...ROW_PACKAGES, ...CONNECTION_ROW_PACKAGES];
    const adapters = await run("npm", ["install", ...NPM_FLAGS, ...packages], app, 180_000);
    expect(adapters.code, show(adapters)).toBe(0);
  }, 200_000);

  for (const row of [...BLOCK_ROWS, ...MEDIA_ROWS, ...ADAPTER_ROWS, ...CONNECTION_ROWS]) {
    it(`${row.block}: ${row.behaviour}`, async () => {
      const undo: (() => Promise<void> | void)[] = [];
      const servers: Started[] = [];
      const ctx: RowContext = {
        write(files) {
          for (const [rel, text] of Object.entries(files)) {
            const file = join(app, rel);
            const before = existsSync(file) ? readFileSync(file, "utf8") : undefined;
            undo.push(() => (before === undefined ? rmSync(file) : writeFileSync(file, before)));
            mkdirSync(dirname(file), { recursive: true });
            writeFileSync(file, text);
          }
        },
        async start(options) {
          const server = await startServer(appBin, app, options);
          servers.push(server);
          return server;
        },
        cleanup: (fn) => void undo.push(fn),
        bin: (args) => run(appBin, args, app, 60_000),
        project: app,
      };
      // Each row starts from an empty store: a gateway's saved state (a Telegram update offset, say)
      // belongs to the previous row's fake, and a new fake numbers its updates from 1 again.
      await rm(join(app, "data"), { recursive: true, force: true });
      let codes: (number | null)[] = [];
      try {
        await row.run(ctx);
      } catch (err) {
        // What the service said is the first thing to read when a row fails (in CI too).
        const said = servers.map((s) => s.output()).join("\n--- next start\n");
        throw new Error(`${(err as Error).message}\n--- agentsvc output\n${said}`, { cause: err });
      } finally {
        // Servers first (they hold the fakes' connections), then the row's fakes and files.
        codes = await Promise.all(servers.map((s) => s.stop()));
        for (const fn of undo.reverse()) await fn();
      }
      // Each stopped cleanly on SIGTERM.
      expect(codes, servers.map((s) => s.output()).join("\n")).toEqual(servers.map(() => 0));
    }, 120_000);
  }
});
