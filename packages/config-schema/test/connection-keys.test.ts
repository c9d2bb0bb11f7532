import { describe, expect, it } from "vitest";
import { expectError, loadErrors, loadOk } from "./helpers.js";

describe("deafAfter on push gateway entries (#43 item 11)", () => {
  it("takes a duration and hands it to the adapter as written", async () => {
    const project = await loadOk({
      "gateways/tg.yaml": "type: telegram\nbotTokenEnvVar: TG\ndeafAfter: 1h30m\n",
    });
    expect(project.pushGateways[0]).toMatchObject({ deafAfter: "1h30m" });
  });

  it("refuses what is not a duration, and one under 30 s, naming the key", async () => {
    const errors = await loadErrors({
      "gateways/tg.yaml": "type: telegram\nbotTokenEnvVar: TG\ndeafAfter: soon\n",
      "gateways/slack.yaml": "type: slack\nbotTokenEnvVar: B\nappTokenEnvVar: A\ndeafAfter: 10s\n",
    });
    expectError(errors, "gateways/tg.yaml", "deafAfter", /must be a duration such as "10m"/);
    expectError(errors, "gateways/slack.yaml", "deafAfter", /at least 30s/);
  });
});
