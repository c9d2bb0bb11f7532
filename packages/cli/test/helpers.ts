import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { testTempDir } from "../../../tooling/vitest.temp-dirs.js";

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs main() in-process with captured output; `tty` makes both streams claim to be terminals. */
export async function run(
  argv: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined>; tty?: boolean } = {},
): Promise<Run> {
  // Imported here, not at the top: most files import this module for repoRoot or tempDir and run
  // the built bin, and the CLI's sources (every command) were loaded in each of their processes.
  const { main } = await import("../src/index.js");
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    stdout: { write: (s: string) => (stdout += s), isTTY: opts.tty ?? false },
    stderr: { write: (s: string) => (stderr += s), isTTY: opts.tty ?? false },
    env: opts.env ?? {},
    cwd: opts.cwd ?? tmpdir(),
  });
  return { code, stdout, stderr };
}

/** A fresh temp folder, removed when the test file ends (AGENTSVC_TEST_KEEP_TMP=1 keeps it). */
export function tempDir(prefix = "agentsvc-cli-"): string {
  return testTempDir(prefix);
}

export function writeFiles(dir: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    const abs = join(dir, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
  }
  return dir;
}

export const repoRoot = resolve(import.meta.dirname, "../../..");

/** Links real workspace packages into a project's node_modules, as `npm install` would provide them. */
export function linkPackages(dir: string, packages: Record<string, string>): void {
  for (const [name, folder] of Object.entries(packages)) {
    const target = join(dir, "node_modules", name);
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(resolve(repoRoot, folder), target, "dir");
  }
}

export const BOT_AGENT = `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`;

/** A folder of broken entries, with the file and key of every error check must print. */
export const BROKEN: { files: Record<string, string>; expected: string[] } = {
  files: {
    "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" }, gatewaySession: { policy: "sometimes" } };\n`,
    "gateways/web.yaml":
      "exposes: webui\npath: /chat\ndatabase:\n  path: /var/chat.db\ntheme:\n  colour: red\n",
    "gateways/api.yaml": "exposes: agent\npath: /chat\n",
    "gateways/hook.yaml": "type: http\n",
    "gateways/wa.yaml": "type: whatsapp-web\n",
    "gateways/tools.yaml": "exposes: mcp\npath: /mcp\ntarget: nothing\n",
    "gateways/users.yaml":
      "exposes: webui\npath: /team\nusers:\n  - username: ada\n    password: letmein-secret\n",
  },
  expected: [
    "agents/bot.ts: gatewaySession.policy:",
    "gateways/web.yaml: database.path: must be relative to the app root",
    "gateways/web.yaml: theme.colour: unknown theme token",
    "gateways/web.yaml: path: must be unique across exposure entries (also used by gateways/api.yaml)",
    "gateways/hook.yaml: secretEnvVar: is required",
    "gateways/wa.yaml: type: unknown type",
    "gateways/tools.yaml: target: must equal the declared name of a tool server",
    "gateways/users.yaml: users[0].password: a literal password is not allowed",
  ],
};

/** Installs (links) the nine built-in adapter packages into a project: doctor runs each adapter's own checks. */
export function linkAdapters(dir: string): string {
  const types = ["telegram", "slack", "discord", "email", "whatsapp", "teams", "twilio", "github", "signal"];
  linkPackages(
    dir,
    Object.fromEntries(types.map((t) => [`@agentsvc/gateway-${t}`, `packages/gateway-${t}`])),
  );
  return dir;
}
