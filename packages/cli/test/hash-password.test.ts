import { Readable } from "node:stream";
import { verifyPassword } from "@agentsvc/chat-store";
import { describe, expect, it } from "vitest";
import { main } from "../src/index.js";

async function hash(argv: string[], stdin?: string) {
  let stdout = "";
  let stderr = "";
  const code = await main(["hash-password", ...argv], {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: {},
    cwd: process.cwd(),
    stdin: Readable.from(stdin === undefined ? [] : [stdin]),
  });
  return { code, stdout: stdout.trim(), stderr };
}

describe("agentsvc hash-password", () => {
  it("prints a pbkdf2 hash of --password that verifies", async () => {
    const r = await hash(["--password=correct horse", "--iterations", "1000"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^pbkdf2\$1000\$[^$]+\$[^$]+$/);
    expect(await verifyPassword("correct horse", r.stdout)).toBe(true);
    expect(await verifyPassword("wrong horse", r.stdout)).toBe(false);
  });

  it("reads the password from stdin when --password is absent, dropping one trailing newline", async () => {
    const r = await hash(["--iterations", "1000"], "from stdin\n");
    expect(r.code).toBe(0);
    expect(await verifyPassword("from stdin", r.stdout)).toBe(true);
  });

  it("refuses an empty password and a bad iteration count", async () => {
    expect((await hash([], "")).code).toBe(2);
    const bad = await hash(["--password=x", "--iterations", "many"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--iterations");
  });
});
