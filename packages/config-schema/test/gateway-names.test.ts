import { describe, expect, it } from "vitest";
import { formatIssue } from "../src/index.js";
import { expectError, loadErrors, loadOk } from "./helpers.js";

const RULE = /must be letters, digits, '\.', '_' and '-', starting with a letter or digit/;

describe("gateway entry names (file names under gateways/)", () => {
  it("refuses a name with ':', which could make one gateway's thread ids (gw:<name>:<thread>) another's", async () => {
    const errors = await loadErrors({
      "gateways/a:b.yaml": "type: http\nsecretEnvVar: HTTP_SECRET\n",
      "gateways/a.yaml": "type: http\nsecretEnvVar: HTTP_SECRET\n",
    });
    const e = expectError(errors, "gateways/a:b.yaml", "", RULE);
    expect(formatIssue(e)).toContain('(got "a:b")');
    expect(errors.map((x) => x.file)).toEqual(["gateways/a:b.yaml"]);
  });

  it("refuses spaces, '%', quotes and a leading dot or dash, for every kind of entry", async () => {
    const errors = await loadErrors({
      "gateways/my bot.yaml": "exposes: webui\npath: /chat\n",
      "gateways/100%.yaml": "type: telegram\nbotTokenEnvVar: TG_TOKEN\n",
      "gateways/it's.yaml": "type: http\nsecretEnvVar: HTTP_SECRET\n",
      "gateways/-x.yaml": "type: mock\n",
    });
    for (const file of [
      "gateways/-x.yaml",
      "gateways/100%.yaml",
      "gateways/it's.yaml",
      "gateways/my bot.yaml",
    ])
      expectError(errors, file, "", RULE);
    expect(errors).toHaveLength(4);
  });

  it("still checks the keys of an entry whose name is refused (every error at once)", async () => {
    const errors = await loadErrors({ "gateways/a:b.yaml": "type: http\nbogus: 1\n" });
    expectError(errors, "gateways/a:b.yaml", "", RULE);
    expect(errors.some((e) => e.file === "gateways/a:b.yaml" && /bogus/.test(formatIssue(e)))).toBe(true);
  });

  it("accepts letters of either case, digits, dots, underscores and dashes", async () => {
    const p = await loadOk({
      "gateways/support-2.yaml": "type: http\nsecretEnvVar: HTTP_SECRET\n",
      "gateways/my_Bot.v2.yaml": "type: http\nsecretEnvVar: HTTP_SECRET\n",
      "gateways/2nd.yaml": "type: mock\n",
      "gateways/web.yaml": "exposes: webui\npath: /chat\n",
    });
    expect(p.channels.map((c) => c.entryName).sort()).toEqual(["2nd", "my_Bot.v2", "support-2"]);
    expect(p.exposures.map((e) => e.entryName)).toEqual(["web"]);
  });
});
