import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentsvcError } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../../../tooling/vitest.temp-dirs.js";
import { adapterLoadError, installCommand } from "../src/install-command.js";

const project = (lockfile?: string) => {
  const root = testTempDir("agentsvc-pm-");
  if (lockfile) writeFileSync(join(root, lockfile), "");
  return root;
};

describe("installCommand", () => {
  it("names npm install for a project without a lockfile", () => {
    expect(installCommand(project(), "@agentsvc/gateway-http")).toBe("npm install @agentsvc/gateway-http");
  });

  it("follows the nearest lockfile, including a workspace's above the project", () => {
    expect(installCommand(project("pnpm-lock.yaml"), "x")).toBe("pnpm add x");
    expect(installCommand(project("yarn.lock"), "x")).toBe("yarn add x");
    const workspace = project("bun.lock");
    mkdirSync(join(workspace, "apps/bot"), { recursive: true });
    expect(installCommand(join(workspace, "apps/bot"), "x")).toBe("bun add x");
  });

  it("rewrites only the adapter-not-installed error", () => {
    const root = project();
    const missing = new AgentsvcError("adapter_not_installed", "pnpm add @agentsvc/gateway-slack");
    expect(adapterLoadError(missing, "slack", root).message).toBe(
      `gateway type "slack" needs the package @agentsvc/gateway-slack, which is not installed in ${root}. Install it: npm install @agentsvc/gateway-slack`,
    );
    // A mock entry's adapter is a subpath of session-core: the command installs the package.
    const mock = new AgentsvcError("adapter_not_installed", "pnpm add @agentsvc/session-core");
    expect(adapterLoadError(mock, "mock", root).message).toMatch(
      /needs the package @agentsvc\/session-core\/mock, .* Install it: npm install @agentsvc\/session-core$/,
    );
    const other = new Error("boom");
    expect(adapterLoadError(other, "slack", root)).toBe(other);
  });
});
