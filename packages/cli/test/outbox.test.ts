// `agentsvc outbox` on a stopped project's store: list, drop, retry and their refusals. The verbs
// against a running service (a dead letter listed, retried and delivered) are in
// dead-letters-bin.test.ts, through the built bin's `start`.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { describe, expect, it } from "vitest";
import { run, tempDir, writeFiles } from "./helpers.js";

/** A row of `agentsvc outbox list --json`. */
interface Listed {
  id: number;
  gateway: string;
  thread: string;
  status: string;
  attempts: number;
  reason: string | null;
}

describe("agentsvc outbox on a stopped project's store", () => {
  it("prints a table, drops a dead piece, refuses a sent one and a bad command line", async () => {
    const dir = tempDir("agentsvc-outbox-drop-");
    writeFiles(dir, {
      "agents/bot.mjs": `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
    });
    mkdirSync(join(dir, "data"));
    const db = ChatDb.open({ appRoot: dir, path: "data/agentsvc.db" });
    const piece = (thread: string, key: string) => ({
      gateway: "slack",
      thread,
      idemKey: key,
      kind: "text" as const,
      payload: { text: key },
    });
    const [a, b, c] = await db.outbox.enqueue([piece("C1:1", "a"), piece("C2:2", "b"), piece("C3:3", "c")]);
    await db.outbox.markDead(a as number, "403 not_in_channel");
    await db.outbox.markSent(c as number, "ts");
    db.close();

    const table = await run(["outbox", "list", "--dir", dir]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^id\s+gateway\s+thread\s+kind\s+status\s+attempts\s+created\s+reason$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 5))).toEqual([
      [String(a), "slack", "C1:1", "text", "dead"],
      [String(b), "slack", "C2:2", "text", "pending"],
    ]);
    expect(lines[1]).toMatch(/403 not_in_channel$/);

    expect(await run(["outbox", "drop", String(a), "--dir", dir])).toMatchObject({ code: 0 });
    expect((await run(["outbox", "drop", String(c), "--dir", dir])).stderr).toContain("was sent already");
    expect((await run(["outbox", "drop", "999", "--dir", dir])).code).toBe(1);
    expect((await run(["outbox", "list", "--dead", "--dir", dir])).stdout).toBe(
      "no pending or dead pieces\n",
    );
    expect((await run(["outbox", "retry", "--dir", dir])).code).toBe(2);
    expect((await run(["outbox", "resend", "--dir", dir])).stderr).toContain("expected list, retry or drop");
  });
});

describe("agentsvc outbox --gateway", () => {
  it("retry --all-dead --gateway slack requeues only Slack's dead pieces, and list --gateway shows only that gateway", async () => {
    const dir = tempDir("agentsvc-outbox-gateway-");
    writeFiles(dir, {
      "agents/bot.mjs": `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
    });
    mkdirSync(join(dir, "data"));
    const db = ChatDb.open({ appRoot: dir, path: "data/agentsvc.db" });
    const piece = (gateway: string, key: string) => ({
      gateway,
      thread: `${gateway}-thread`,
      idemKey: key,
      kind: "text" as const,
      payload: { text: key },
    });
    const [slack, telegram] = await db.outbox.enqueue([piece("slack", "s"), piece("telegram", "t")]);
    await db.outbox.markDead(slack as number, "403 not_in_channel");
    await db.outbox.markDead(telegram as number, "403 bot was blocked by the user");
    db.close();

    const listed = await run(["outbox", "list", "--dead", "--gateway", "telegram", "--json", "--dir", dir]);
    expect((JSON.parse(listed.stdout) as Listed[]).map((r) => r.id)).toEqual([telegram]);

    const retried = await run(["outbox", "retry", "--all-dead", "--gateway", "slack", "--dir", dir]);
    expect(retried).toMatchObject({ code: 0, stderr: "" });
    expect(retried.stdout).toBe(`1 dead piece back in the queue: ${slack}\n`);
    const after = JSON.parse((await run(["outbox", "list", "--json", "--dir", dir])).stdout) as Listed[];
    expect(after.map((r) => [r.gateway, r.status])).toEqual([
      ["slack", "pending"],
      ["telegram", "dead"],
    ]);
  });
});
