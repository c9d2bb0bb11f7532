import { describe, expect, it } from "vitest";
import { expectError, loadErrors, loadOk } from "./helpers.js";

describe("agentsvc.config", () => {
  it("reads port, rootAgent and datasources from YAML", async () => {
    const p = await loadOk({
      "agentsvc.config.yml": "port: 8080\nrootAgent: bot\ndatasources:\n  extra:\n    type: sqlite\n",
    });
    expect(p.config).toEqual({
      port: 8080,
      rootAgent: "bot",
      datasources: { agentsvc: { type: "sqlite" }, extra: { type: "sqlite" } },
      storeDurability: "power",
    });
    expect(p.configFile).toBe("agentsvc.config.yml");
  });

  it("reads a TS config module", async () => {
    const p = await loadOk({
      "agentsvc.config.ts": "export default { port: 4000 } satisfies { port: number };\n",
    });
    expect(p.config.port).toBe(4000);
  });

  it("works without any config file", async () => {
    const p = await loadOk({});
    expect(p.config).toEqual({ datasources: { agentsvc: { type: "sqlite" } }, storeDurability: "power" });
    expect(p.configFile).toBeUndefined();
  });

  it("rejects two config files", async () => {
    const errors = await loadErrors({ "agentsvc.config.json": "{}", "agentsvc.config.yaml": "port: 1\n" });
    expectError(
      errors,
      "agentsvc.config.yaml",
      "",
      /must be the only config file \(got agentsvc\.config\.json, agentsvc\.config\.yaml\)/,
    );
  });

  it("rejects an unknown key, a bad port and an unknown datasource type", async () => {
    const errors = await loadErrors({
      "agentsvc.config.yaml": "prot: 3000\nport: 99999\ndatasources:\n  my:\n    type: mysql\n",
    });
    expectError(errors, "agentsvc.config.yaml", "prot", /unknown key in agentsvc\.config/);
    expectError(errors, "agentsvc.config.yaml", "port", /must be at most 65535/);
    expectError(
      errors,
      "agentsvc.config.yaml",
      "datasources.my.type",
      /must be one of sqlite, postgres \(got "mysql"\)/,
    );
  });

  it("reports YAML syntax errors with their line", async () => {
    const errors = await loadErrors({ "agentsvc.config.yaml": "port: 3000\nport: 4000\n" });
    expectError(errors, "agentsvc.config.yaml", "line 2", /must be valid YAML/);
  });

  it("reads allowedHosts and refuses a URL or a host with a port in it", async () => {
    const p = await loadOk({
      "agentsvc.config.yaml":
        "allowedHosts:\n  - chat.example.com\n  - .corp.example\n  - 192.168.1.5\n  - '::1'\n",
    });
    expect(p.config.allowedHosts).toEqual(["chat.example.com", ".corp.example", "192.168.1.5", "::1"]);
    const errors = await loadErrors({
      "agentsvc.config.yaml": "allowedHosts:\n  - https://chat.example.com\n  - chat.example.com:8080\n",
    });
    expectError(
      errors,
      "agentsvc.config.yaml",
      "allowedHosts[0]",
      /must be a host name without scheme or port/,
    );
    expectError(
      errors,
      "agentsvc.config.yaml",
      "allowedHosts[1]",
      /must be a host name without scheme or port/,
    );
  });
});
