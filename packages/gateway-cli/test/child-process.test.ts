import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const jiti = join(require.resolve("jiti/package.json"), "..", "lib", "jiti-cli.mjs");

describe("cli gateway in a real child process", () => {
  it("reads the answer and the reason from piped stdin and reports the rejection", async () => {
    const child = spawn(process.execPath, [jiti, join(import.meta.dirname, "fixtures", "cli-child.ts")], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += String(c);
    });
    child.stderr.on("data", (c) => {
      stderr += String(c);
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.stdin.write("nope\n");
    child.stdin.write("R\n");
    child.stdin.end("amount too high\n");
    const code = await exited;
    clearTimeout(timer);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("Tool: wire_money");
    expect(stdout).toContain("Please answer A, R, Q.");
    const line = stderr.split("\n").find((l) => l.startsWith("DECISION "));
    expect(JSON.parse(line?.slice("DECISION ".length) ?? "null")).toEqual({
      requestId: "req_child",
      decision: { decision: "reject", reason: "amount too high" },
      decidedBy: "cli:cli",
    });
  });
});
