import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runBin } from "./child.js";
import { BOT_AGENT, tempDir, writeFiles } from "./helpers.js";

describe("a mistyped command line gets a did-you-mean, not the parser's text", () => {
  it("suggests the nearest verb for an unknown one, exit 2", () => {
    const r = runBin(["strat"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "strat"; did you mean "start"?');
  });

  it("suggests the nearest option of the verb, without Node's positional-argument advice", () => {
    const r = runBin(["start", "--prot", "3000"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown option --prot for agentsvc start; did you mean "--port"?');
    expect(r.stderr).not.toMatch(/positional argument|Unknown option '/);
  });

  it("says which option lacks its value", () => {
    const r = runBin(["start", "--port"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("option --port needs a value");
  });

  it("suggests --version for a mistyped global option", () => {
    const r = runBin(["--verison"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('did you mean "--version"?');
  });
});

describe("a usage error of a verb that opens the project's store", () => {
  it.each([
    [["schedules", "cancel", "digest"], "cancel takes a reminder (reminder:<id>)"],
    [["outbox", "retry", "abc"], "<id>: expected a positive integer"],
    [["pairing", "approve"], "approve <code>"],
    [["usage", "--since", "yesterday"], "--since: expected a date"],
  ])("agentsvc %j exits 2 and creates no store in the project", (args, message) => {
    const dir = writeFiles(tempDir(), { "agents/bot.mjs": BOT_AGENT });
    const r = runBin([...args, "--dir", dir]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    expect(existsSync(join(dir, "data")), "data/ written").toBe(false);
  });
});
