import { describe, expect, it } from "vitest";
import { expectError, load, loadErrors, loadOk } from "./helpers.js";

describe("agentsvc.config: prices and budgets", () => {
  it("are absent unless declared (nothing is refused)", async () => {
    const p = await loadOk({});
    expect(p.config.prices).toBeUndefined();
    expect(p.config.budgets).toBeUndefined();
  });

  it("reads prices per million tokens and budgets per scope, day and month", async () => {
    const p = await loadOk({
      "agentsvc.config.yaml": [
        "prices:",
        '  "openai/gpt-4o-mini": { input: 0.15, output: 0.6, cachedInput: 0.075 }',
        '  "anthropic/claude-sonnet-4-5": { input: 3, output: 15, cachedInput: 0.3, cacheWriteInput: 3.75 }',
        "budgets:",
        "  service: { month: { cost: 50 } }",
        "  perUser: { day: { tokens: 200000, cost: 0.5 } }",
        "  gateways:",
        "    whatsapp: { day: { cost: 2 } }",
        "  warnAt: 0.9",
        "",
      ].join("\n"),
    });
    expect(p.config.prices).toEqual({
      "openai/gpt-4o-mini": { input: 0.15, output: 0.6, cachedInput: 0.075 },
      "anthropic/claude-sonnet-4-5": { input: 3, output: 15, cachedInput: 0.3, cacheWriteInput: 3.75 },
    });
    expect(p.config.budgets).toEqual({
      service: { month: { cost: 50 } },
      perUser: { day: { tokens: 200000, cost: 0.5 } },
      gateways: { whatsapp: { day: { cost: 2 } } },
      warnAt: 0.9,
    });
  });

  it("names the key of a bad price or limit", async () => {
    expectError(
      await loadErrors({ "agentsvc.config.yaml": 'prices:\n  "openai/gpt-4o": { input: -1, output: 1 }\n' }),
      "agentsvc.config.yaml",
      "prices.openai/gpt-4o.input",
      /must be 0 or more/,
    );
    expectError(
      await loadErrors({
        "agentsvc.config.yaml":
          'prices:\n  "anthropic/claude-haiku-4-5": { input: 1, output: 5, cacheWriteInput: "1.25x" }\n',
      }),
      "agentsvc.config.yaml",
      "prices.anthropic/claude-haiku-4-5.cacheWriteInput",
      /must be a number \(price of input tokens written to the provider's cache/,
    );
    expectError(
      await loadErrors({ "agentsvc.config.yaml": "budgets:\n  perUser: { week: { cost: 1 } }\n" }),
      "agentsvc.config.yaml",
      "budgets.perUser.week",
      /unknown key in limits/,
    );
    expectError(
      await loadErrors({ "agentsvc.config.yaml": "budgets:\n  service: { day: { tokens: 1.5 } }\n" }),
      "agentsvc.config.yaml",
      "budgets.service.day.tokens",
      /must be an integer/,
    );
  });

  it("warns about a budget naming no gateway entry or agent, and cost limits without prices", async () => {
    const r = await load({
      "agentsvc.config.yaml": [
        "budgets:",
        "  gateways: { whatsap: { day: { tokens: 10 } } }",
        "  agents: { bot: { day: { tokens: 10 } }, other: { day: { tokens: 10 } } }",
        "  service: { day: { cost: 1 } }",
        "",
      ].join("\n"),
    });
    expect(r.ok).toBe(true);
    expect(r.warnings.map((w) => [w.path, w.message])).toEqual([
      ["budgets.gateways.whatsap", expect.stringMatching(/names no push gateway entry \(none\)/)],
      ["budgets.agents.other", expect.stringMatching(/names no agent \(bot\)/)],
      ["budgets", expect.stringMatching(/cost limits but prices is empty/)],
    ]);
  });
});
