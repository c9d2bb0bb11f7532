import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pino } from "pino";
import { GatewayRegistry, loadAdapterPackage } from "../src/index.js";
import { createMockGateway } from "../src/testing/index.js";
import { captureLogs } from "./helpers.js";

describe("GatewayRegistry", () => {
  it("registers a push-style gateway under its type and a channel adapter under its entry name", () => {
    const registry = new GatewayRegistry();
    const push = createMockGateway({ kind: "push", type: "telegram" });
    const channel = createMockGateway({ name: "ops" });
    registry.register(push);
    registry.register(channel);
    expect(registry.get("telegram")).toBe(push);
    expect(registry.get("ops")).toBe(channel);
    expect(registry.list()).toHaveLength(2);
  });

  it("lets a second push-style gateway of one type overwrite the first, with a warning", async () => {
    const logs = captureLogs();
    const registry = new GatewayRegistry(pino(logs.stream));
    const first = createMockGateway({ kind: "push", type: "slack" });
    const second = createMockGateway({ kind: "push", type: "slack" });
    registry.register(first);
    registry.register(second);
    expect(registry.get("slack")).toBe(second);
    expect(logs.lines().some((l) => l.level === 40 && String(l.msg).includes("overwrites"))).toBe(true);
  });

  it("refuses a second channel adapter with the same entry name", () => {
    const registry = new GatewayRegistry();
    registry.register(createMockGateway({ name: "ops" }));
    expect(() => registry.register(createMockGateway({ name: "ops" }))).toThrow(
      /"ops" is already registered/,
    );
  });
});

describe("loadAdapterPackage", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentsvc-load-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("fails naming the pnpm add command when the adapter package is not installed", async () => {
    // A type no workspace package provides (the workspace's own adapters resolve in tests).
    await expect(loadAdapterPackage("nosuchplatform", { from: dir })).rejects.toMatchObject({
      code: "adapter_not_installed",
      message: expect.stringContaining("pnpm add @agentsvc/gateway-nosuchplatform"),
    });
  });

  it("imports an installed adapter package from the app root", async () => {
    const pkg = join(dir, "node_modules", "@agentsvc", "gateway-fake");
    mkdirSync(pkg, { recursive: true });
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({
        name: "@agentsvc/gateway-fake",
        type: "module",
        exports: { ".": { default: "./index.js" } },
      }),
    );
    writeFileSync(join(pkg, "index.js"), "export const marker = 'fake adapter loaded';\n");
    const mod = await loadAdapterPackage("fake", { from: dir });
    expect(mod.marker).toBe("fake adapter loaded");
  });

  it("loads the mock adapter, a subpath of session-core, from an app that installed session-core", async () => {
    const app = mkdtempSync(join(tmpdir(), "agentsvc-load-mock-"));
    try {
      const pkg = join(app, "node_modules", "@agentsvc", "session-core");
      mkdirSync(pkg, { recursive: true });
      writeFileSync(
        join(pkg, "package.json"),
        JSON.stringify({
          name: "@agentsvc/session-core",
          type: "module",
          exports: { "./mock": { default: "./mock.js" } },
        }),
      );
      writeFileSync(join(pkg, "mock.js"), "export const marker = 'mock adapter loaded';\n");
      const mod = await loadAdapterPackage("mock", { from: app });
      expect(mod.marker).toBe("mock adapter loaded");
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });

  it("rejects a type that cannot be a package name", async () => {
    await expect(loadAdapterPackage("../evil", { from: dir })).rejects.toMatchObject({
      code: "bad_gateway_type",
    });
  });
});
