import { describe, expect, it } from "vitest";
import { expectError, loadErrors, loadOk } from "./helpers.js";

describe("agentsvc.config: metrics", () => {
  it("is off unless declared", async () => {
    expect((await loadOk({})).config.metrics).toBeUndefined();
  });

  it("serves at a path on the service's port, optionally behind an API key", async () => {
    const p = await loadOk({
      "agentsvc.config.yaml": "metrics:\n  path: /metrics\n  apiKeyEnvVar: METRICS_KEY\n",
    });
    expect(p.config.metrics).toEqual({ path: "/metrics", apiKeyEnvVar: "METRICS_KEY" });
  });

  it("or on its own port bound to loopback, at /metrics unless a path is given", async () => {
    expect((await loadOk({ "agentsvc.config.yaml": "metrics:\n  port: 9464\n" })).config.metrics).toEqual({
      path: "/metrics",
      port: 9464,
    });
  });

  it("names the key and the fix for what it refuses", async () => {
    expectError(
      await loadErrors({ "agentsvc.config.yaml": "metrics: {}\n" }),
      "agentsvc.config.yaml",
      "metrics",
      /needs a path \(served on the service's port.*\) or a port/,
    );
    expectError(
      await loadErrors({ "agentsvc.config.yaml": "metrics:\n  path: metrics\n" }),
      "agentsvc.config.yaml",
      "metrics.path",
      /must start with \//,
    );
    expectError(
      await loadErrors({ "agentsvc.config.yaml": "metrics:\n  path: /health\n" }),
      "agentsvc.config.yaml",
      "metrics.path",
      /taken by the health probes/,
    );
    expectError(
      await loadErrors({ "agentsvc.config.yaml": "metrics:\n  port: 70000\n" }),
      "agentsvc.config.yaml",
      "metrics.port",
      /TCP port/,
    );
    expectError(
      await loadErrors({ "agentsvc.config.yaml": "metrics:\n  path: /m\n  apiKeyEnvVr: METRICS_KEY\n" }),
      "agentsvc.config.yaml",
      "metrics.apiKeyEnvVr",
      /did you mean "apiKeyEnvVar"/,
    );
    expectError(
      await loadErrors({ "agentsvc.config.yaml": "metrics:\n  path: /m\n  apiKeyEnvVar: not a name\n" }),
      "agentsvc.config.yaml",
      "metrics.apiKeyEnvVar",
      /./,
    );
  });
});
