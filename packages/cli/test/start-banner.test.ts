import { afterEach, describe, expect, it } from "vitest";
import { type Served, outputUntil, serveBin } from "./child.js";
import { BOT_AGENT, linkPackages, tempDir, writeFiles } from "./helpers.js";

let served: Served | undefined;
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

describe("the start banner", () => {
  it("names the port and lists every gateway with the URL its platform posts to", async () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
      "gateways/hooks.yaml": "type: http\nsecretEnvVar: HOOKS_SECRET\n",
      "agentsvc.config.yaml": "publicBaseUrl: https://bot.example.com\n",
    });
    linkPackages(dir, { "@agentsvc/gateway-http": "packages/gateway-http" });
    served = await serveBin(["start", dir, "--port", "0"], { HOOKS_SECRET: "s3cret-value-for-hmac" });
    const port = new URL(served.url).port;
    const out = await outputUntil(served, (o) => o.includes("  gateway hooks"), 3000).catch(
      () => served?.output() ?? "",
    );
    expect(out).toContain(`listening ${served.url} (port ${port})`);
    expect(out).toMatch(
      /^ {2}gateway hooks \(http\) +https:\/\/bot\.example\.com\/gateways\/hooks\/events$/m,
    );
  });
});
