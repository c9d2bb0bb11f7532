// The per-gateway activity ages over real HTTP (#43 item 11): the Discord fake acknowledges the
// bot's heartbeats (a platform call that worked) and sends READY and a message (the platform heard);
// each shows as a gauge labelled by the gateway, absent until the first. The adapter is loaded as an
// installed app loads it (its dist: `pnpm build`), linked into the fixture's node_modules.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { DiscordFake, eventually } from "@agentsvc/testkit";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";

let root: string;
let server: RunningServer;
let discord: DiscordFake;

beforeAll(async () => {
  discord = await DiscordFake.start({ heartbeatIntervalMs: 100 });
  root = mkdtempSync(resolve(import.meta.dirname, "fixtures/.metrics-activity-"));
  mkdirSync(join(root, "agents"));
  mkdirSync(join(root, "gateways"));
  mkdirSync(join(root, "node_modules/@agentsvc"), { recursive: true });
  symlinkSync(
    resolve(import.meta.dirname, "../../../packages/gateway-discord"),
    join(root, "node_modules/@agentsvc/gateway-discord"),
    "dir",
  );
  writeFileSync(
    join(root, "package.json"),
    JSON.stringify({ name: "metrics-activity-fixture", private: true, type: "module" }),
  );
  writeFileSync(
    join(root, "agents/ops.mjs"),
    `import { defineAgent } from "@agentsvc/agent-core";\nexport default defineAgent({ name: "ops", model: { provider: "demo" }, memory: { type: "window" } });\n`,
  );
  writeFileSync(
    join(root, "gateways/discord.yaml"),
    `type: discord\nbotTokenEnvVar: DISCORD_TOKEN\napiBaseUrl: ${discord.apiBaseUrl}\n`,
  );
  writeFileSync(join(root, "agentsvc.config.yaml"), "metrics:\n  path: /metrics\n");
  const loaded = await loadProject(root);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => `${e.file}: ${e.path}: ${e.message}`).join("\n"));
  server = await startServer(loaded.project, {
    port: 0,
    logger: pino({ level: "silent" }),
    env: { DISCORD_TOKEN: discord.token },
    buildDir: mkdtempSync(join(tmpdir(), "agentsvc-metrics-activity-build-")),
    interactive: false,
  });
});

afterAll(async () => {
  await server?.shutdown();
  await discord?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The value of gauge `name` for `gateway`, or undefined while the series is absent. */
async function gauge(name: string, gateway: string): Promise<number | undefined> {
  const res = await fetch(`${server.url}/metrics`);
  expect(res.status).toBe(200);
  const sample = parsePrometheusTextFormat(await res.text())
    .filter((f) => f.name === name)
    .flatMap((f) => f.metrics)
    .find((m) => m.labels?.gateway === gateway);
  return sample === undefined ? undefined : Number(sample.value);
}

describe("agentsvc_gateway_last_inbound_age_seconds and agentsvc_gateway_last_platform_call_age_seconds", () => {
  it("show, per gateway, how long ago Discord last sent something and last acknowledged a heartbeat", async () => {
    await eventually(() => discord.connections.some((c) => c.identified), "the bot identified");
    await eventually(
      async () => (await gauge("agentsvc_gateway_last_platform_call_age_seconds", "discord")) !== undefined,
      "a heartbeat ACK shown",
    );
    // READY is a dispatch: the platform has spoken.
    expect(await gauge("agentsvc_gateway_last_inbound_age_seconds", "discord")).toBeGreaterThanOrEqual(0);
    expect(await gauge("agentsvc_gateway_last_platform_call_age_seconds", "discord")).toBeGreaterThanOrEqual(
      0,
    );
    const res = await fetch(`${server.url}/metrics`);
    const lines = (await res.text()).split("\n").filter((l) => l.startsWith("agentsvc_gateway_last_"));
    // Only the gateway's name labels the series.
    expect(lines.map((l) => l.replace(/ [\d.e+-]+$/, ""))).toEqual([
      'agentsvc_gateway_last_inbound_age_seconds{gateway="discord"}',
      'agentsvc_gateway_last_platform_call_age_seconds{gateway="discord"}',
    ]);
  });
});
