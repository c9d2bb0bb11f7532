// An e-mail sender chooses its thread id (the Message-ID) and a platform chooses an error text: what
// `agentsvc outbox` prints of them must not reach the terminal as escape codes or forged lines.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { describe, expect, it } from "vitest";
import { run, tempDir, writeFiles } from "./helpers.js";

// Clear the screen, set the window title (OSC), a forged row, a C1 CSI.
const HOSTILE = "<a\u001b[2J\u001b]0;owned\u0007@evil.test>\nid 99 slack C9 text dead\u009b31m";

describe("agentsvc outbox with a sender-chosen thread id", () => {
  it("escapes C0 and C1 control characters in every table cell and message, on a terminal too", async () => {
    const dir = tempDir("agentsvc-outbox-escapes-");
    writeFiles(dir, {
      "agents/bot.mjs": `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
    });
    mkdirSync(join(dir, "data"));
    const db = ChatDb.open({ appRoot: dir, path: "data/agentsvc.db" });
    const [id] = await db.outbox.enqueue([
      { gateway: "email", thread: HOSTILE, idemKey: "k", kind: "text", payload: { text: "hi" } },
    ]);
    await db.outbox.markDead(id as number, `550 no such user\u001b[1A\u001b[2K`);
    db.close();

    for (const tty of [false, true]) {
      const table = await run(["outbox", "list", "--dir", dir], { tty, env: { FORCE_COLOR: "1" } });
      expect(table.code).toBe(0);
      // Our own bold header is the only escape sequence; the hostile text shows as visible escapes.
      expect(table.stdout.replace(/\u001b\[(1|22)m/g, "")).not.toMatch(
        /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/,
      );
      const lines = table.stdout.trimEnd().split("\n");
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain(
        "<a\\u001b[2J\\u001b]0;owned\\u0007@evil.test>\\nid 99 slack C9 text dead\\u009b31m",
      );
      expect(lines[1]).toContain("550 no such user\\u001b[1A\\u001b[2K");
    }
    const retried = await run(["outbox", "retry", String(id), "--dir", dir]);
    expect(retried.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(retried.stdout).toContain("\\u001b[2J");
    expect(retried.stdout.trimEnd().split("\n")).toHaveLength(1);
    // The JSON form keeps the stored value exactly (JSON.stringify escapes it).
    const json = await run(["outbox", "list", "--json", "--dir", dir]);
    expect((JSON.parse(json.stdout) as { thread: string }[])[0]?.thread).toBe(HOSTILE);
  });
});
