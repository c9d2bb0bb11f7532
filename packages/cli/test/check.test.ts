import { describe, expect, it } from "vitest";
import { BOT_AGENT, BROKEN, linkPackages, run, tempDir, writeFiles } from "./helpers.js";

describe("agentsvc check", () => {
  it("prints every error of a folder of broken entries, each with file and key, and exits 1", async () => {
    const dir = writeFiles(tempDir(), BROKEN.files);
    const r = await run(["check", dir]);
    expect(r.code).toBe(1);
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("error "));
    for (const want of BROKEN.expected) {
      expect(
        lines.some((l) => l.startsWith(`error ${want}`)),
        `missing: ${want}\n${r.stderr}`,
      ).toBe(true);
    }
    expect(lines).toHaveLength(BROKEN.expected.length);
    expect(r.stderr).toContain(`${BROKEN.expected.length} errors, 0 warnings`);
    expect(r.stderr).not.toContain("letmein-secret");
  });

  it("exits 0 with a summary on a valid project, resolving dir against the working folder", async () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.ts": BOT_AGENT,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
    });
    const r = await run(["check", "."], { cwd: dir });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toBe("ok root agent bot, 1 agent, 0 tool servers, 1 exposure, 0 gateways\n");
  });

  it("prints warnings on a valid project and still exits 0", async () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.ts": BOT_AGENT,
      "gateways/a.yaml": "type: telegram\nbotTokenEnvVar: TG_A\n",
      "gateways/b.yaml": "type: telegram\nbotTokenEnvVar: TG_B\n",
    });
    linkPackages(dir, { "@agentsvc/gateway-telegram": "packages/gateway-telegram" });
    const r = await run(["check", dir]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^warning gateways\/b\.yaml: type: two telegram entries \(gateways\/a\.yaml and gateways\/b\.yaml\)/,
    );
  });

  it("rejects a bad postgres datasource (unknown key, bad pool) and warns about its unset URL variable", async () => {
    const bad = writeFiles(tempDir(), {
      "agents/bot.ts": BOT_AGENT,
      "agentsvc.config.yaml":
        "datasources:\n  main:\n    type: postgres\n    urlEnvVar: PG_URL\n    pool: -1\n  other:\n    type: postgres\n    urlEnvVar: PG_URL\n    host: db\n",
    });
    const r = await run(["check", bad], { env: { PG_URL: "postgres://app@db/x" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error agentsvc.config.yaml: datasources.main.pool: must be at least 1");
    expect(r.stderr).toContain(
      "error agentsvc.config.yaml: datasources.other.host: unknown key in a postgres datasource",
    );
    const ok = writeFiles(tempDir(), {
      "agents/bot.ts": BOT_AGENT,
      "agentsvc.config.yaml": "datasources:\n  main:\n    type: postgres\n    urlEnvVar: PG_URL\n",
    });
    const unset = await run(["check", ok], { env: {} });
    expect(unset.code).toBe(0);
    expect(unset.stderr).toMatch(
      /^warning agentsvc\.config\.yaml: datasources\.main\.urlEnvVar: environment variable PG_URL is not set/,
    );
    expect((await run(["check", ok], { env: { PG_URL: "postgres://app@db/x" } })).stderr).toBe("");
  });

  it("colours errors on a terminal and not when NO_COLOR is set", async () => {
    const dir = writeFiles(tempDir(), { "agents/bot.ts": BOT_AGENT, "gateways/h.yaml": "type: http\n" });
    const tty = await run(["check", dir], { tty: true });
    expect(tty.stderr).toContain("\u001b[31merror\u001b[39m gateways/h.yaml: secretEnvVar:");
    const noColor = await run(["check", dir], { tty: true, env: { NO_COLOR: "1" } });
    expect(noColor.stderr).not.toContain("\u001b[");
    expect(noColor.stderr).toContain("error gateways/h.yaml: secretEnvVar:");
  });

  it("rejects a second positional argument as a usage error", async () => {
    const r = await run(["check", "a", "b"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/takes at most 1 argument/);
  });
});
