// An entry whose apiKeyEnvVar variable is empty reaches agentRoutes as `apiKey: ""`: the route must
// fail closed (refuse to be built), never serve every caller.
import { defineAgent, RunManager, WindowMemory } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import { agentInfo, agentRoutes } from "../src/index.js";

describe("an empty API key", () => {
  it("refuses to build the route instead of leaving it open", () => {
    const agent = defineAgent({ name: "helper", model: { provider: "demo" } });
    const runs = new RunManager({ agent, memory: new WindowMemory() });
    expect(() => agentRoutes({ runs, info: agentInfo(runs, { apiKey: true }), apiKey: "" })).toThrow(
      /the API key is empty/,
    );
  });
});
