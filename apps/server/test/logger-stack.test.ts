import pino from "pino";
import { describe, expect, it } from "vitest";
import { loggerOptions } from "../src/logger.js";

function logRetry(level: string): Record<string, unknown>[] {
  const lines: string[] = [];
  const logger = pino(loggerOptions(level), { write: (line: string) => lines.push(line) });
  const err = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9", { cause: new Error("socket") }), {
    code: "ECONNREFUSED",
  });
  logger.warn({ err, retryInMs: 1000 }, "could not connect; retrying");
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("an error logged by a retry", () => {
  it("is one line with its message and code, without the stack, at info", () => {
    const lines = logRetry("info");
    expect(lines).toHaveLength(1);
    const err = lines[0]?.err as Record<string, unknown>;
    expect(err).toMatchObject({ type: "Error", code: "ECONNREFUSED" });
    expect(String(err.message)).toContain("connect ECONNREFUSED 127.0.0.1:9");
    expect(JSON.stringify(lines[0])).not.toContain("    at ");
  });

  it("pino's default serializer (what the logger used before) carries the stack", () => {
    const lines: string[] = [];
    pino({ level: "info" }, { write: (l: string) => lines.push(l) }).warn({ err: new Error("x") }, "retry");
    expect(lines.join("")).toContain("    at ");
  });

  it("keeps the stack at debug", () => {
    const err = logRetry("debug")[0]?.err as Record<string, unknown>;
    expect(String(err.stack)).toContain("    at ");
  });
});
