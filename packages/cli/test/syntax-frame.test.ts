import { describe, expect, it } from "vitest";
import { codeFrame } from "../src/code-frame.js";
import { run, tempDir, writeFiles } from "./helpers.js";

const AGENT_ROUTE = { "gateways/agent.yaml": "exposes: agent\npath: /agent\n" };

describe("a syntax error in a project file", () => {
  it("is shown with the offending line and a caret under the column", async () => {
    const dir = writeFiles(tempDir(), {
      ...AGENT_ROUTE,
      "agents/bot.ts": [
        "const greeting: string = 'hi';",
        "",
        "export default {",
        '  kind: "agent",',
        '  name: "bot",',
        '  model: { provider: "demo" },',
        "  tools: [1 2],",
        "};",
        "",
      ].join("\n"),
    });
    for (const verb of ["check", "start", "build"]) {
      const r = await run([verb, dir]);
      expect(r.code, verb).toBe(1);
      const lines = r.stderr.split("\n");
      const at = lines.findIndex((l) => l.startsWith("error agents/bot.ts:7:13: syntax error"));
      expect(at, `${verb}:\n${r.stderr}`).toBeGreaterThanOrEqual(0);
      expect(lines[at + 1]).toBe("    7 |   tools: [1 2],");
      expect(lines[at + 2]).toBe("      |             ^");
    }
  });

  it("keeps tabs before the caret and prints nothing for a line the file does not have", () => {
    const dir = writeFiles(tempDir(), { "agents/bot.mjs": "export default {\n\t\tname: 1 2,\n};\n" });
    expect(codeFrame(dir, "agents/bot.mjs:2:11")).toEqual([
      "    2 | \t\tname: 1 2,",
      "      | \t\t        ^",
    ]);
    expect(codeFrame(dir, "agents/bot.mjs:9:1")).toEqual([]);
    expect(codeFrame(dir, "agents/missing.mjs:1:1")).toEqual([]);
  });
});
