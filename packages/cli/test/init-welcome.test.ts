import { join } from "node:path";
import { type AgentDefinition, RunManager, WindowMemory } from "@agentsvc/agent-core";
import { loadProject } from "@agentsvc/config-schema";
import { describe, expect, it } from "vitest";
import { linkPackages, run, tempDir } from "./helpers.js";

// The welcome text is the first thing a new user reads: it may promise only what the demo model does.
describe("the scaffolded chat page's welcome", () => {
  it("offers a sum the demo model gets right and promises no open-ended answers", async () => {
    const dir = join(tempDir(), "app");
    expect((await run(["init", dir])).code).toBe(0);
    linkPackages(dir, {
      "@agentsvc/agent-core": "packages/agent-core",
      "@agentsvc/config-schema": "packages/config-schema",
      valibot: "packages/config-schema/node_modules/valibot",
    });
    const loaded = await loadProject(dir);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const page = loaded.project.exposures.find((e) => e.exposes === "webui");
    const welcome = page?.exposes === "webui" ? (page.welcome ?? "") : "";
    expect(welcome).not.toMatch(/anything/i);
    expect(welcome).toMatch(/demo model/i);

    // The example the welcome suggests, asked of the scaffolded agent, gets the right sum.
    const example = welcome.match(/"([^"]*\d[^"]*)"/)?.[1];
    expect(example).toBeDefined();
    const numbers = (example ?? "").match(/\d+/g)?.map(Number) ?? [];
    const runs = new RunManager({
      agent: loaded.project.rootAgent.definition as AgentDefinition,
      memory: new WindowMemory(),
    });
    const result = await runs.start({ input: example ?? "", userId: "u", conversationId: "c" }).done;
    expect(result.text).toContain(`{"sum":${numbers.reduce((a, b) => a + b, 0)}}`);
  });
});
