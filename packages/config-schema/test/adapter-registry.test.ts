// Push-style entries are validated by the adapter package their type names (issue #42): the nine
// built-in packages by `@agentsvc/gateway-<type>`, a third-party one by its own package name, both
// found in the project's node_modules. Fake third-party packages are written into the project.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findAdapter, formatIssue, PUSH_TYPES } from "../src/index.js";
import { expectError, load, loadErrors, writeProject } from "./helpers.js";

/** A package in the project's node_modules whose main module is `source` (no dependencies). */
function installPackage(dir: string, name: string, source: string): void {
  const root = join(dir, "node_modules", name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ name, type: "module", exports: "./index.js" }));
  writeFileSync(join(root, "index.js"), source);
}

// valibot-free on purpose: an entry schema is any valibot-compatible object; these packages only
// need to load. `personal` is what a bridge driving someone's own messenger account would declare.
const adapterSource = (type: string, account: string) => `
export const adapter = { type: ${JSON.stringify(type)}, kind: "connection", account: ${JSON.stringify(account)}, secrets: [] };
export const entrySchema = {};
export function createGateway() { throw new Error("not started in this test"); }
`;

async function errorsOf(files: Record<string, string>, packages: Record<string, string>, adapters = true) {
  const dir = writeProject(files, { adapters });
  for (const [name, source] of Object.entries(packages)) installPackage(dir, name, source);
  const { loadProject } = await import("../src/index.js");
  const r = await loadProject(dir);
  return r.ok ? [] : r.errors;
}

describe("the adapter registry", () => {
  it.each(PUSH_TYPES)(
    "the built-in %s package's light entry exports its metadata, entry schema and doctor, not its gateway",
    async (type) => {
      const dir = writeProject({});
      const found = await findAdapter(type, dir);
      expect(found.found).toBe("loaded");
      if (found.found !== "loaded") return;
      expect(found.pkg).toBe(`@agentsvc/gateway-${type}`);
      expect(found.module.adapter).toMatchObject({ type, account: "bot" });
      expect(["connection", "webhook"]).toContain(found.module.adapter.kind);
      expect(typeof found.module.doctor).toBe("function");
      // Read from `./adapter`: start alone loads createGateway, from the main entry.
      expect("createGateway" in found.module).toBe(false);
      // Every secret the metadata names is a key of its entry schema.
      for (const key of found.module.adapter.secrets)
        expect(Object.keys(found.module.entrySchema)).toContain(key);
    },
  );

  it("checks only the common keys of a built-in entry whose package is not installed (check and start name the package)", async () => {
    const r = await load(
      { "gateways/tg.yaml": "type: telegram\nbotTokenEnvVar: TG\nanyPlatformKey: 1\n" },
      { adapters: false },
    );
    expect(r.ok && r.project.pushGateways).toEqual([
      {
        entryName: "tg",
        file: "gateways/tg.yaml",
        type: "telegram",
        botTokenEnvVar: "TG",
        anyPlatformKey: 1,
      },
    ]);
    const errors = await loadErrors(
      { "gateways/tg.yaml": "type: telegram\nbotTokenEnvVar: TG\napprovers: nobody\n" },
      { adapters: false },
    );
    expectError(errors, "gateways/tg.yaml", "approvers", /must be a list of platform user ids/);
  });

  it("refuses an adapter package that declares a personal account as an unknown type", async () => {
    const errors = await errorsOf(
      { "gateways/wa.yaml": 'type: "@acme/agentsvc-gateway-wa-web"\n' },
      { "@acme/agentsvc-gateway-wa-web": adapterSource("wa-web", "personal") },
    );
    const e = expectError(errors, "gateways/wa.yaml", "type", /unknown type \(.*personal account/);
    expect(formatIssue(e)).toContain('(got "@acme/agentsvc-gateway-wa-web")');
  });

  it("refuses a package that is not an adapter, and one claiming a built-in name, as unknown types", async () => {
    const errors = await errorsOf(
      {
        "gateways/a.yaml": 'type: "@acme/agentsvc-gateway-nothing"\n',
        "gateways/b.yaml": "type: agentsvc-gateway-fake-telegram\n",
      },
      {
        "@acme/agentsvc-gateway-nothing": "export const hello = 1;\n",
        "agentsvc-gateway-fake-telegram": adapterSource("telegram", "bot"),
      },
    );
    expectError(
      errors,
      "gateways/a.yaml",
      "type",
      /unknown type \(the package @acme\/agentsvc-gateway-nothing is not an agentsvc adapter: it exports no `adapter` metadata\)/,
    );
    expectError(errors, "gateways/b.yaml", "type", /unknown type \(.*claims the built-in name "telegram"\)/);
  });

  it("still checks the common keys of an entry whose package type is not installed or is refused", async () => {
    const errors = await errorsOf(
      {
        "gateways/line.yaml": 'type: "@acme/agentsvc-gateway-line"\napprovers: nobody\nstreamIntervalMs: 5\n',
        "gateways/wa.yaml": 'type: "@acme/agentsvc-gateway-wa-web"\nstreaming: maybe\n',
      },
      { "@acme/agentsvc-gateway-wa-web": adapterSource("wa-web", "personal") },
    );
    expectError(
      errors,
      "gateways/line.yaml",
      "type",
      /the package @acme\/agentsvc-gateway-line is not installed/,
    );
    expectError(errors, "gateways/line.yaml", "approvers", /must be a list of platform user ids/);
    expectError(errors, "gateways/line.yaml", "streamIntervalMs", /./);
    expectError(errors, "gateways/wa.yaml", "type", /personal account/);
    expectError(errors, "gateways/wa.yaml", "streaming", /./);
    expect(errors).toHaveLength(5);
  });

  it("registers a third-party entry under the adapter's name and remembers its package", async () => {
    const dir = writeProject({ "gateways/chat.yaml": "type: agentsvc-gateway-toy\n" });
    installPackage(dir, "agentsvc-gateway-toy", adapterSource("toy", "bot"));
    const { loadProject } = await import("../src/index.js");
    const r = await loadProject(dir);
    expect(r.ok && r.project.pushGateways).toEqual([
      { entryName: "chat", file: "gateways/chat.yaml", type: "toy", package: "agentsvc-gateway-toy" },
    ]);
  });

  it("reserves a third-party adapter's name as a memory scope: no webui account may take it", async () => {
    const errors = await errorsOf(
      {
        "gateways/chat.yaml": "type: agentsvc-gateway-toy\n",
        "gateways/web.yaml":
          "exposes: webui\npath: /team\nusers:\n  - username: toy\n    passwordEnvVar: TOY_PASSWORD\n",
      },
      { "agentsvc-gateway-toy": adapterSource("toy", "bot") },
    );
    expectError(
      errors,
      "gateways/web.yaml",
      "users[0].username",
      /reserved: it is the memory scope of the toy gateway/,
    );
  });
});
