import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { commands } from "../src/index.js";
import { run } from "./helpers.js";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};

describe("agentsvc verbs and global options", () => {
  it("prints the package version for --version and -v", async () => {
    for (const flag of ["--version", "-v"]) {
      const r = await run([flag]);
      expect(r).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
    }
  });

  it("lists every verb in --help", async () => {
    const r = await run(["--help"]);
    expect(r.code).toBe(0);
    for (const c of commands) expect(r.stdout).toContain(`  ${c.name} `);
  });

  it("prints usage and options for --help of every verb", async () => {
    expect(commands.map((c) => c.name)).toEqual([
      "init",
      "check",
      "doctor",
      "build",
      "start",
      "dev",
      "hash-password",
      "outbox",
      "pairing",
      "schedules",
      "usage",
    ]);
    for (const c of commands) {
      const r = await run([c.name, "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: agentsvc ${c.name} `));
      expect(r.stdout).toContain("--help");
    }
    expect((await run(["build", "--help"])).stdout).toContain("--out <dir>");
  });

  it("rejects an unknown verb with the list of verbs, exit 2", async () => {
    const r = await run(["deploy"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'unknown command "deploy" (commands: init, check, doctor, build, start, dev, hash-password, outbox, pairing, schedules, usage; options: --help, --version)',
    );
  });

  it("rejects an unknown option of a verb, exit 2", async () => {
    const r = await run(["check", "--fast"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option --fast for agentsvc check (options: --help)");
    expect(r.stderr).toContain("agentsvc check --help");
  });

  it("prints help on stderr with exit 2 when no verb is given", async () => {
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Usage: agentsvc <command>");
  });
});
