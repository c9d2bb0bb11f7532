import { describe, expect, it } from "vitest";
import { runBin } from "./child.js";
import { tempDir, writeFiles } from "./helpers.js";

// Outside vitest, agent modules load through Node's own loader first and through jiti when Node
// cannot take them; both must give the same project.
describe("agent modules load with or without Node's type stripping", () => {
  it("loads a typed TS agent, an agent using an enum (strip-only mode rejects it) and an extensionless import", () => {
    const dir = writeFiles(tempDir(), {
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
      "agentsvc.config.json": JSON.stringify({ rootAgent: "typed" }),
      "agents/typed.ts": `type Kind = "agent";\nconst kind: Kind = "agent";\nexport default { kind, name: "typed", model: { provider: "demo" as const } };\n`,
      "agents/enumed.ts": `enum Mode { Demo = "demo" }\nexport default { kind: "agent", name: "enumed", model: { provider: Mode.Demo } };\n`,
      "agents/imports.ts": `import { model } from "../lib/model";\nexport default { kind: "agent", name: "imports", model };\n`,
      "lib/model.ts": `export const model = { provider: "demo" };\n`,
    });
    const r = runBin(["check", dir]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("root agent typed, 3 agents");
  });
});
