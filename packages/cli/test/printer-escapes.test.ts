// The printer's safety net: whatever text reaches a line, only the CLI's own styles are escape codes.
import { describe, expect, it } from "vitest";
import { printer } from "../src/io.js";

describe("every line the CLI prints", () => {
  it("keeps its own colours and line breaks, and shows any other control character as an escape", () => {
    let out = "";
    const print = printer({
      stdout: { write: (s: string) => (out += s), isTTY: true },
      stderr: { write: () => {} },
      env: {},
      cwd: "/",
    });
    print.out(
      `${print.style("out", "red", "error")} gateways/x\u001b]0;title\u0007.yaml\u001b[2J\u009b1A\r\nnext`,
    );
    expect(out).toBe(
      "\u001b[31merror\u001b[39m gateways/x\\u001b]0;title\\u0007.yaml\\u001b[2J\\u009b1A\\r\nnext\n",
    );
  });
});
