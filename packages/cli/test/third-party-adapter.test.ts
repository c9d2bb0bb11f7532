// A third-party adapter written outside packages/ (tooling/install-test/fixtures/agentsvc-gateway-pigeon,
// plain JavaScript with its own fake) installed into a project as npm would (copied into
// node_modules with its one dependency), then validated, started, answered through its fake and
// diagnosed by the bundled `agentsvc` bin, with no file of this repository naming it (issue #42).
// doctor also asks the running service for the gateway's ages (issue #43.11).
import { cpSync, mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { eventually } from "@agentsvc/testkit/session";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBinAsync, serveBin } from "./child.js";
import { BOT_AGENT, repoRoot, tempDir, writeFiles } from "./helpers.js";

const FIXTURE = join(repoRoot, "tooling/install-test/fixtures/agentsvc-gateway-pigeon");
const PKG = "@acme/agentsvc-gateway-pigeon";

interface PigeonFake {
  url: string;
  token: string;
  botMessages: { chat: string; text: string }[];
  userSends(chat: string, text: string): void;
  close(): Promise<void>;
}

/** What `npm install @acme/agentsvc-gateway-pigeon` leaves: the package and its dependency (valibot). */
function installPigeon(dir: string): void {
  cpSync(FIXTURE, join(dir, "node_modules", PKG), { recursive: true });
  // The CLI's own copy (a dependency of this package), as the project's install would hold one.
  const valibot = realpathSync(join(import.meta.dirname, "../node_modules/valibot"));
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(valibot, join(dir, "node_modules", "valibot"), "dir");
}

let fake: PigeonFake;
let dir: string;

beforeAll(async () => {
  const { startPigeonFake } = (await import(join(FIXTURE, "fake.js"))) as {
    startPigeonFake(): Promise<PigeonFake>;
  };
  fake = await startPigeonFake();
  dir = tempDir("agentsvc-third-party-");
  installPigeon(dir);
});

afterAll(async () => {
  await fake?.close();
});

const entry = (keys: string) => `type: "${PKG}"\n${keys}`;

describe("a third-party adapter named by package", () => {
  it("is validated with its own schema: check names the file and key of each error, by the adapter's name", async () => {
    writeFiles(dir, {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/pigeon.yaml": entry(`apiBaseURL: ${fake.url}\npollWaitSeconds: 99\n`),
    });
    const r = await runBinAsync(["check", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error gateways/pigeon.yaml: tokenEnvVar: is required in a pigeon entry");
    expect(r.stderr).toMatch(
      /error gateways\/pigeon\.yaml: apiBaseURL: unknown key in a pigeon entry \(known keys: type, .*tokenEnvVar, apiBaseUrl, pollWaitSeconds\); did you mean "apiBaseUrl"\?/,
    );
    expect(r.stderr).toMatch(/error gateways\/pigeon\.yaml: pollWaitSeconds: /);
  });

  it("is an unknown type when the package is not installed, naming the package", async () => {
    const bare = writeFiles(tempDir("agentsvc-third-party-bare-"), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/pigeon.yaml": entry("tokenEnvVar: PIGEON_TOKEN\napiBaseUrl: http://127.0.0.1:9\n"),
    });
    const r = await runBinAsync(["check", bare]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error gateways/pigeon.yaml: type: unknown type (the package ${PKG} is not installed)`,
    );
  });

  it("is started and answers through its platform; doctor runs its checks and reads the gateway's ages from the running service", async () => {
    writeFiles(dir, {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/pigeon.yaml": entry(`tokenEnvVar: PIGEON_TOKEN\napiBaseUrl: ${fake.url}\n`),
    });
    const env = { PIGEON_TOKEN: fake.token };
    const check = await runBinAsync(["check", dir], env);
    expect(check.stderr).toBe("");
    expect(check.stdout).toMatch(/^ok root agent bot, .*1 gateway/);

    const before = await runBinAsync(["doctor", dir], env);
    expect(before.stdout).toMatch(/ok\s+pigeon GET \/v1\/me\s+bot pigeon-bot/);
    expect(before.stdout).toMatch(/service\s+not running: no agentsvc start is running in this project/);

    const served = await serveBin(["start", dir, "--port", "0"], env);
    try {
      fake.userSends("chat-7", "hello through pigeon");
      await eventually(() => fake.botMessages.length > 0, "the agent's answer on Pigeon", 20_000);
      expect(fake.botMessages[0]?.chat).toBe("chat-7");
      expect(fake.botMessages[0]?.text).toContain("hello through pigeon");

      const running = await runBinAsync(["doctor", dir, "--json"], env);
      const report = JSON.parse(running.stdout) as {
        ok: boolean;
        service: { running: boolean; url: string; gateways: Record<string, Record<string, unknown>> };
      };
      expect(report.ok).toBe(true);
      expect(report.service.running).toBe(true);
      expect(report.service.url).toBe(served.url);
      // Registered under the adapter's own name, with both ages known.
      expect(report.service.gateways.pigeon).toMatchObject({
        state: "running",
        lastInboundAgeSeconds: expect.any(Number),
        lastPlatformCallAgeSeconds: expect.any(Number),
      });
      const table = await runBinAsync(["doctor", dir], env);
      expect(table.stdout).toContain(`service   running at ${served.url}`);
      expect(table.stdout).toMatch(
        / {2}pigeon\s+running, last inbound \d+ s ago, last platform call \d+ s ago/,
      );
    } finally {
      expect(await served.stop()).toBe(0);
    }
    // Stopped: the record is gone and doctor says so.
    const after = await runBinAsync(["doctor", dir], env);
    expect(after.stdout).toMatch(/service\s+not running/);
  }, 60_000);
});
