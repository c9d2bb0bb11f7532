import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildProject } from "../src/index.js";
import { BOT_AGENT, tempDir, writeFiles } from "./helpers.js";

describe("agentsvc build writes the chat page", () => {
  it("writes <out>/<path>/index.html for every webui entry, with its branding and theme file", async () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/web.yaml": "exposes: webui\npath: /support/chat\ntitle: Support <desk>\n",
      "resources/webui/theme.css": ".composer { outline: 1px solid #123456; }\n",
    });
    const out = join(dir, "out");
    const result = await buildProject(dir, { outDir: out });
    expect(result.ok).toBe(true);
    const html = readFileSync(join(out, "support/chat/index.html"), "utf8");
    expect(html).toContain("Support &lt;desk&gt;");
    expect(html).not.toContain("Support <desk>");
    expect(html).toContain("#123456");
  });
});
