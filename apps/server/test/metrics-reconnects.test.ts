// agentsvc_gateway_reconnects_total over real HTTP: the Discord fake drops the bot's gateway socket
// without a close frame (a lost connection), the adapter resumes, and the scrape counts one
// reconnect for that gateway; the first connect counts none. The adapter is loaded as an installed
// app loads it (its dist: `pnpm build`), linked into the fixture's node_modules.
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
  discord = await DiscordFake.start();
  root = mkdtempSync(resolve(import.meta.dirname, "fixtures/.metrics-reconnects-"));
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
    JSON.stringify({ name: "metrics-reconnects-fixture", private: true, type: "module" }),
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
    buildDir: mkdtempSync(join(tmpdir(), "agentsvc-metrics-reconnects-build-")),
    interactive: false,
  });
});

afterAll(async () => {
  await server?.shutdown();
  await discord?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The reconnect counter of `gateway`, or undefined while the series is absent. */
async function reconnects(gateway: string): Promise<number | undefined> {
  const res = await fetch(`${server.url}/metrics`);
  expect(res.status).toBe(200);
  const sample = parsePrometheusTextFormat(await res.text())
    .filter((f) => f.name === "agentsvc_gateway_reconnects_total")
    .flatMap((f) => f.metrics)
    .find((m) => m.labels?.gateway === gateway);
  return sample === undefined ? undefined : Number(sample.value);
}

describe("agentsvc_gateway_reconnects_total", () => {
  it("counts a Discord resume after the fake dropped the socket, and not the first connect", async () => {
    await eventually(() => discord.connections.some((c) => c.identified), "the bot identified");
    expect(await reconnects("discord")).toBeUndefined();

    discord.sessions.drop();
    await eventually(
      () => discord.connections.some((c) => c.resumedSession !== undefined),
      "the bot resumed its session",
    );
    await eventually(async () => (await reconnects("discord")) === 1, "one reconnect counted for discord");
    // Only the gateway's name labels the series.
    const res = await fetch(`${server.url}/metrics`);
    const line = (await res.text())
      .split("\n")
      .find((l) => l.startsWith("agentsvc_gateway_reconnects_total{"));
    expect(line).toBe('agentsvc_gateway_reconnects_total{gateway="discord"} 1');
  });
});
