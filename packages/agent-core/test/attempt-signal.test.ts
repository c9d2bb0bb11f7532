// The signal each model attempt gets: aborted by the run's cancel (with its reason), and tied to the
// run's signal only while the attempt lasts (a turn's signal outlives many attempts).
import { getEventListeners } from "node:events";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { type AttemptScope, callModel, type ModelCandidate } from "../src/model-call.js";
import { ModelCallError } from "../src/model-errors.js";

const candidate: ModelCandidate = {
  model: { modelId: "stub", provider: "stub" } as unknown as LanguageModelV4,
  provider: "stub",
};

describe("model attempts: their signal", () => {
  it("a cancel during an attempt aborts the attempt's signal with the run's reason", async () => {
    const run = new AbortController();
    const reason = new DOMException("The run was cancelled.", "AbortError");
    let seen: AbortSignal | undefined;
    const pending = callModel({
      primary: candidate,
      signal: run.signal,
      streamed: () => false,
      attempt: (scope: AttemptScope) =>
        new Promise<string>((_, fail) => {
          seen = scope.signal;
          scope.signal.addEventListener("abort", () => fail(scope.signal.reason), { once: true });
          run.abort(reason);
        }),
    });
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).error.code).toBe("cancelled");
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe(reason);
  });

  it("attempts that ended leave no abort listener on the run's signal (three attempts, two retried)", async () => {
    const run = new AbortController();
    let attempts = 0;
    const result = await callModel({
      primary: candidate,
      signal: run.signal,
      streamed: () => false,
      policy: { initialDelayMs: 1, random: () => 0.5 },
      attempt: async () => {
        attempts++;
        if (attempts < 3) throw Object.assign(new Error("overloaded"), { statusCode: 529 });
        return "ok";
      },
    });
    expect(result.value).toBe("ok");
    expect(attempts).toBe(3);
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });
});
