// serveBin's error when the child ends before its "listening" line: how it ended (exit code or
// signal) and stderr's last lines, so a red bin test says why.
import { describe, expect, it } from "vitest";
import { serveBin } from "./child.js";

/** serveBin on `node -e script`: the error it rejects with. */
async function earlyExit(script: string): Promise<string> {
  const served = serveBin([], {}, { file: process.execPath, args: ["-e", script] });
  const err = await served.then(
    () => new Error("listening"),
    (e: Error) => e,
  );
  return err.message;
}

describe("serveBin on a child that ends before listening", () => {
  it("names the exit code and stderr's last lines", async () => {
    const message = await earlyExit(
      'for (let i = 1; i <= 30; i++) console.error("line " + i); console.log("on stdout"); process.exit(3);',
    );
    expect(message).toMatch(/^exited with code 3 before listening; stderr's last lines:\nline 11\n/);
    expect(message).toContain("line 30\nwhole output:");
    expect(message.split("whole output:")[0]).not.toContain("line 10\n");
    expect(message.split("whole output:")[0]).not.toContain("on stdout");
    expect(message.split("whole output:")[1]).toContain("on stdout");
  });

  it("names the signal that ended it", async () => {
    const message = await earlyExit('console.error("about to die"); process.kill(process.pid, "SIGKILL");');
    expect(message).toMatch(/^killed by SIGKILL before listening; stderr's last lines:\nabout to die\n/);
  });
});
