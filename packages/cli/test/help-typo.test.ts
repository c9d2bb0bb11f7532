import { describe, expect, it } from "vitest";
import { run } from "./helpers.js";

describe("agentsvc help <verb>", () => {
  it("suggests the verb for a typo and exits 2", async () => {
    const r = await run(["help", "strat"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "strat"');
    expect(r.stderr).toContain('did you mean "start"?');
    expect(r.stdout).toBe("");
  });

  it("still shows a known verb's help", async () => {
    const r = await run(["help", "check"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("agentsvc check");
  });
});
