// Exactly-once across crashes: 200 messages over the http gateway to a server process that is
// killed with SIGKILL at each durability step (after record, mid-turn, after the turn is saved but
// before its reply, mid-send, mid-resume, inside an approved tool). After the restarts every
// message has exactly one turn and exactly one reply, in per-thread order, and no approved tool
// ran twice.
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { freePort } from "@agentsvc/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { HooksClient, ServerProcess } from "./crash-driver.js";

const THREADS = 10;
const PER_THREAD = 20;
const SECRET = "crash-secret";
/** Message #17 of threads 0 and 1 needs an approval. */
const APPROVAL_AT = 17;

interface Msg {
  id: string;
  thread: string;
  text: string;
  token: string;
  approval: boolean;
}

function messages(): Msg[] {
  const all: Msg[] = [];
  for (let i = 0; i < PER_THREAD; i++) {
    for (let t = 0; t < THREADS; t++) {
      const token = `m-${t}-${i}`;
      const approval = i === APPROVAL_AT && t < 2;
      all.push({
        id: `ev-${token}`,
        thread: `t${t}`,
        text: approval ? `use transfer ${token}` : token,
        token,
        approval,
      });
    }
  }
  return all;
}

const root = mkdtempSync(join(tmpdir(), "agentsvc-crash-"));
// The store lives in this temp root; adapters resolve from it as from an app root with them installed.
symlinkSync(join(import.meta.dirname, "../node_modules"), join(root, "node_modules"), "dir");
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("crash safety of gateway turns (separate process, SIGKILL)", () => {
  it("gives every one of 200 messages exactly one turn and one reply, in per-thread order, across kills at every step", async () => {
    const port = await freePort();
    const toolLog = join(root, "tool-runs.log");
    // The client's own server: every reply and request is also POSTed here (at least once; the
    // idempotency key makes it exactly once for a client that keeps the keys it has seen).
    const callbacks: { thread: string; kind: string; text: string; key: string }[] = [];
    const receiver = createServer((req, res) => {
      let raw = "";
      req.on("data", (c) => {
        raw += String(c);
      });
      req.on("end", () => {
        const m = JSON.parse(raw) as { thread: string; kind: string; text: string; idempotencyKey: string };
        callbacks.push({ thread: m.thread, kind: m.kind, text: m.text, key: m.idempotencyKey });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
    const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const server = new ServerProcess(root, port, {
      HOOKS_SECRET: SECRET,
      CRASH_TOOL_LOG: toolLog,
      CRASH_CALLBACK_URL: callbackUrl,
    });
    const client = new HooksClient(`http://127.0.0.1:${port}`, SECRET);
    const queue = messages();
    const approvals = queue.filter((m) => m.approval);
    const decided = new Set<string>();
    const fired: string[] = [];

    /** Sends queued messages in order until `upTo` are sent or the server dies; unsent ones stay queued. */
    async function sendUntil(upTo: (m: Msg) => boolean): Promise<void> {
      while (queue.length > 0 && server.alive) {
        const next = queue[0] as Msg;
        if (!(await client.send(next))) {
          if (!server.alive) return;
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        queue.shift();
        if (upTo(next)) return;
      }
    }

    /** Approves every open request it can see (once each). */
    async function approveOpen(): Promise<void> {
      for (const m of approvals) {
        if (!server.alive) return;
        let shown: Awaited<ReturnType<HooksClient["messages"]>>;
        try {
          shown = await client.messages(m.thread);
        } catch {
          return;
        }
        for (const req of shown.filter((x) => x.kind === "interaction" && x.requestId)) {
          const id = req.requestId as string;
          if (!decided.has(id) && (await client.approve(id)) === "decided") decided.add(id);
        }
      }
    }

    /** Runs one phase with a fault armed; the phase ends when the fault fired. */
    async function phase(fault: string, work: () => Promise<void>): Promise<void> {
      await server.start(fault);
      if (server.alive) await work();
      const exit = await server.waitForExit(30_000);
      if (exit === "timeout") {
        server.kill();
        throw new Error(`fault ${fault} never fired; stderr: ${server.stderr}`);
      }
      expect(exit, `the process of phase ${fault}`).toBe("SIGKILL");
      fired.push(fault);
    }

    const loop = (until: () => boolean) => async () => {
      const deadline = Date.now() + 25_000;
      while (server.alive && !until() && Date.now() < deadline) {
        await sendUntil((m) => m.approval);
        await approveOpen();
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const sendAll = loop(() => false);
    await phase("after-record:15", sendAll);
    await phase("turn-started:20", sendAll);
    await phase("turn-saved:20", sendAll);
    await phase("after-commit:20", sendAll);
    await phase("before-send:20", sendAll);
    await phase("mid-send:20", sendAll);
    await phase("mid-resume:1", sendAll);
    await phase("in-tool", sendAll);
    expect(fired).toHaveLength(8);

    // The last process has no fault: everything left is sent, approved and answered.
    await server.start();
    const deadline = Date.now() + 60_000;
    let done = false;
    while (!done && Date.now() < deadline) {
      await sendUntil(() => false);
      await approveOpen();
      const counts = await Promise.all(
        Array.from(
          { length: THREADS },
          async (_, t) => (await client.messages(`t${t}`)).filter((m) => m.kind === "reply").length,
        ),
      );
      done = queue.length === 0 && counts.every((n) => n >= PER_THREAD);
      if (!done) await new Promise((r) => setTimeout(r, 50));
    }
    expect(done, `not everything answered within 60 s; stderr: ${server.stderr}`).toBe(true);
    await new Promise((r) => setTimeout(r, 300)); // a late duplicate would show up here
    const replies = await Promise.all(Array.from({ length: THREADS }, (_, t) => client.messages(`t${t}`)));
    expect(await server.stop()).toBe(0);
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));

    const db = ChatDb.open({ appRoot: root, path: "./data/agentsvc.db" });
    try {
      const memory = db.createMemory({ canSummarize: false });
      for (let t = 0; t < THREADS; t++) {
        const sent = messages().filter((m) => m.thread === `t${t}`);
        // Exactly one turn per message, in order: each user message is in memory once.
        const stored = await memory.load({ userId: "hooks", conversationId: `t${t}` });
        expect(
          stored.filter((m) => m.role === "user").map((m) => m.content),
          `memory of t${t}`,
        ).toEqual(sent.map((m) => m.text));
        // Exactly one reply per message, in order.
        const texts = (replies[t] ?? []).filter((m) => m.kind === "reply").map((m) => m.text);
        expect(texts, `replies of t${t}`).toHaveLength(PER_THREAD);
        sent.forEach((m, i) => {
          if (!m.approval) expect(texts[i], `reply ${i} of t${t}`).toContain(`"${m.token}"`);
          else expect(texts[i]).toMatch(/transfer/);
        });
        // The callback saw the same replies, in the same order, once per idempotency key.
        const seen = new Set<string>();
        const delivered = callbacks.filter(
          (c) => c.thread === `t${t}` && c.kind === "reply" && !seen.has(c.key) && seen.add(c.key),
        );
        expect(
          delivered.map((c) => c.text),
          `callbacks of t${t}`,
        ).toEqual(texts);
      }
      // Only a kill between a send and its record repeats a piece (same key): at most the pieces in
      // flight (the sender's concurrency, 8) at each of the kills.
      const unique = new Set(callbacks.map((c) => c.key)).size;
      expect(callbacks.length - unique).toBeLessThanOrEqual(8 * fired.length);
      expect(await db.inbox.unfinished()).toEqual([]);
      expect(await db.outbox.countByStatus("pending")).toBe(0);
    } finally {
      db.close();
    }
    // No approved tool ran twice (the one killed inside the tool ran once and was not re-run).
    const runs = readFileSync(toolLog, "utf8").trim().split("\n");
    expect(runs.length).toBeLessThanOrEqual(approvals.length);
    expect(new Set(runs).size).toBe(runs.length);
  }, 240_000);
});
