import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { linkPackages, run, tempDir } from "./helpers.js";

const FILES = [
  "package.json",
  "agents/assistant.ts",
  "gateways/agent.yaml",
  "gateways/web.yaml",
  "README.md",
  ".gitignore",
];

describe("agentsvc init", () => {
  it("scaffolds an agent on the demo model with a valibot tool, an agent route and a chat page", async () => {
    const dir = join(tempDir(), "my-app");
    const r = await run(["init", dir]);
    expect(r.code).toBe(0);
    for (const f of FILES) expect(existsSync(join(dir, f)), f).toBe(true);
    const agent = readFileSync(join(dir, "agents/assistant.ts"), "utf8");
    expect(agent).toContain('model: { provider: "demo" }');
    expect(agent).toMatch(/defineTool\(\{[\s\S]*input: v\.object\(/);
    expect(readFileSync(join(dir, "gateways/agent.yaml"), "utf8")).toMatch(
      /^exposes: agent\npath: \/agent$/m,
    );
    expect(readFileSync(join(dir, "gateways/web.yaml"), "utf8")).toMatch(/^exposes: webui\npath: \/chat$/m);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(pkg.name).toBe("my-app");
    expect(Object.keys(pkg.dependencies)).toEqual(
      expect.arrayContaining(["@agentsvc/agent-core", "@agentsvc/cli", "valibot"]),
    );
  });

  it("produces a project that passes check once its dependencies are installed", async () => {
    const dir = join(tempDir(), "app");
    expect((await run(["init", dir])).code).toBe(0);
    linkPackages(dir, {
      "@agentsvc/agent-core": "packages/agent-core",
      "@agentsvc/config-schema": "packages/config-schema",
      valibot: "packages/config-schema/node_modules/valibot",
    });
    const r = await run(["check", dir]);
    expect(r.stderr).toBe("");
    expect(r).toMatchObject({ code: 0 });
    expect(r.stdout).toContain("root agent assistant, 1 agent, 0 tool servers, 2 exposures");
  });

  it("wires the gateway-entry JSON Schema into each YAML file with a path that resolves once installed", async () => {
    const dir = join(tempDir(), "app");
    await run(["init", dir]);
    linkPackages(dir, { "@agentsvc/config-schema": "packages/config-schema" });
    for (const f of ["gateways/agent.yaml", "gateways/web.yaml"]) {
      const first = readFileSync(join(dir, f), "utf8").split("\n")[0]!;
      const m = /^# yaml-language-server: \$schema=(.+)$/.exec(first);
      expect(m, f).not.toBeNull();
      const schemaPath = resolve(join(dir, "gateways"), m![1]!);
      expect(JSON.parse(readFileSync(schemaPath, "utf8")).title).toBe("agentsvc gateway entry");
    }
  });

  it("ends with install and run commands for the package manager that ran it", async () => {
    const npm = await run(["init", "my-agent"], { cwd: tempDir() });
    expect(npm.stdout).toMatch(/Next:\n {2}cd my-agent\n {2}npm install +# .*\n {2}npx agentsvc dev +# .*\n/);
    const pnpm = await run(["init", "my-agent"], {
      cwd: tempDir(),
      env: { npm_config_user_agent: "pnpm/10.34.9 npm/? node/v24.21.0 linux x64" },
    });
    expect(pnpm.stdout).toMatch(/\n {2}pnpm install +# .*\n {2}pnpm exec agentsvc dev +# /);
  });

  it("refuses to write into a non-empty folder and leaves it untouched", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "notes.txt"), "mine");
    const r = await run(["init", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refusing to write into a non-empty folder \(found notes\.txt\)/);
    expect(existsSync(join(dir, "package.json"))).toBe(false);
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("mine");
  });

  it("scaffolds into the working folder when no dir is given", async () => {
    const dir = tempDir();
    const r = await run(["init"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, "agents/assistant.ts"))).toBe(true);
    expect(r.stdout).not.toContain("cd ");
  });
});
