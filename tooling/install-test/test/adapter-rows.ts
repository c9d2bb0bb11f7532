// An adapter published outside this repository (issue #42): the pigeon fixture, packed and installed
// from its tarball with npm as a user installs any package, then named by package in an entry.
// Nothing in this repository knows its name; check, start and doctor find it in node_modules.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { eventually } from "@agentsvc/testkit";
import { expect } from "vitest";
import type { BlockRow } from "./block-rows.js";
import { NPM_FLAGS, run } from "./outside.js";

const FIXTURE = join(import.meta.dirname, "../fixtures/agentsvc-gateway-pigeon");
const PKG = "@acme/agentsvc-gateway-pigeon";

interface PigeonFake {
  url: string;
  token: string;
  botMessages: { chat: string; text: string }[];
  userSends(chat: string, text: string): void;
  close(): Promise<void>;
}

export const ADAPTER_ROWS: BlockRow[] = [
  {
    block: `gateways/pigeon.yaml (type: "${PKG}", an adapter from outside this repository)`,
    behaviour:
      "npm installs it from its tarball; check validates the entry with its schema (file and key), start runs it, it answers through its fake, and doctor reads its ages from the running service",
    async run(ctx) {
      const packed = await run(
        "npm",
        ["pack", FIXTURE, "--pack-destination", ctx.project, ...NPM_FLAGS],
        ctx.project,
        60_000,
      );
      expect(packed.code, packed.stderr).toBe(0);
      const tarball = join(ctx.project, packed.stdout.trim().split("\n").pop() as string);
      const installed = await run("npm", ["install", ...NPM_FLAGS, tarball], ctx.project, 120_000);
      expect(installed.code, installed.stderr).toBe(0);
      ctx.cleanup(async () => {
        await run("npm", ["uninstall", ...NPM_FLAGS, PKG], ctx.project, 120_000);
        await rm(tarball, { force: true });
      });
      const { startPigeonFake } = (await import(join(FIXTURE, "fake.js"))) as {
        startPigeonFake(): Promise<PigeonFake>;
      };
      const fake = await startPigeonFake();
      ctx.cleanup(() => fake.close());

      ctx.write({
        "gateways/pigeon.yaml": `type: "${PKG}"\ntokenEnvVar: PIGEON_TOKEN\napiBaseURL: ${fake.url}\n`,
      });
      const wrong = await ctx.bin(["check"]);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain("gateways/pigeon.yaml: apiBaseURL: unknown key in a pigeon entry");
      expect(wrong.stderr).toContain("gateways/pigeon.yaml: apiBaseUrl: is required in a pigeon entry");

      ctx.write({
        "gateways/pigeon.yaml": `type: "${PKG}"\ntokenEnvVar: PIGEON_TOKEN\napiBaseUrl: ${fake.url}\n`,
      });
      const check = await ctx.bin(["check"]);
      expect(check.code, check.stderr).toBe(0);
      const served = await ctx.start({ env: { PIGEON_TOKEN: fake.token } });
      fake.userSends("chat-1", "hello from an outside adapter");
      await eventually(() => fake.botMessages.length > 0, "the agent's answer on Pigeon", 20_000);
      expect(fake.botMessages[0]?.text).toContain("hello from an outside adapter");

      // doctor (without the token in its environment: its own check fails) still reads the ages.
      const doctor = await ctx.bin(["doctor", "--json"]);
      const report = JSON.parse(doctor.stdout) as {
        checks: { check: string; status: string }[];
        service: { running: boolean; url: string; gateways: Record<string, Record<string, unknown>> };
      };
      expect(report.checks).toContainEqual(
        expect.objectContaining({ check: "pigeon GET /v1/me", status: "failed" }),
      );
      expect(report.service).toMatchObject({ running: true, url: served.url });
      expect(report.service.gateways.pigeon).toMatchObject({
        state: "running",
        lastInboundAgeSeconds: expect.any(Number),
        lastPlatformCallAgeSeconds: expect.any(Number),
      });
    },
  },
];
