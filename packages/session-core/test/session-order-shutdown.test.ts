// Order across a restart and what a stop leaves: a message delivered while recovery runs waits behind
// its thread's recovered backlog; stop drains running turns for `drainMs` and starts no queued turn.
import { ChatDb } from "@agentsvc/chat-store";
import { afterEach, describe, expect, it } from "vitest";
import { type Rig, removeDir, rig, tempDir, until } from "./session-harness.js";

const T = "T";
const dirs: string[] = [];
const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) await r.close();
  for (const d of dirs.splice(0)) removeDir(d);
});

function freshDir(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}

async function open(options: Parameters<typeof rig>[0]): Promise<Rig> {
  const r = await rig(options);
  rigs.push(r);
  return r;
}

const youSaid = (texts: string[]) => texts.map((t) => /You said: "([^"]*)"/.exec(t)?.[1] ?? t);

describe("a message delivered while recovery runs", () => {
  it("waits behind the recovered backlog of its thread", async () => {
    const dir = freshDir();
    // What a previous process left: two recorded messages of the thread, never run.
    const before = ChatDb.open({ appRoot: dir, path: "data/chat.db" });
    for (const [i, text] of ["first backlog", "second backlog"].entries()) {
      await before.inbox.accept({
        gateway: "mock",
        dedupKey: `old-${i}`,
        thread: T,
        text,
        origin: { gateway: "mock", thread: T, author: { id: "user-1" } },
      });
    }
    before.close();

    const r = await open({
      dir,
      gatewaySession: { policy: "queue" },
      duringRecovery: async (session) => {
        const result = await session.deliver({
          gateway: "mock",
          dedupKey: "new-1",
          thread: T,
          text: "arrived during recovery",
          author: { id: "user-1" },
        });
        expect(result).toMatchObject({ accepted: true });
      },
    });
    await r.session.idle();
    expect(youSaid(r.gateway.textsTo(T))).toEqual([
      "first backlog",
      "second backlog",
      "arrived during recovery",
    ]);
    expect(r.runs.starts.map((s) => s.input)).toEqual([
      "first backlog",
      "second backlog",
      "arrived during recovery",
    ]);
  });
});

describe("stop", () => {
  it("leaves a turn still running at drainMs for the next start, which runs it once", async () => {
    const dir = freshDir();
    const a = await rig({ dir });
    await a.gateway.inject({ thread: T, text: "use wait_gate slow" });
    await until(() => a.gates.calls.length === 1, "the turn at its gate");
    let stopped = false;
    const stopping = a.close(300).then(() => {
      stopped = true;
    });
    // The gate opens once stop has returned (or after 3 s if stop is still waiting, which it must not).
    await Promise.race([stopping, new Promise((res) => setTimeout(res, 3_000))]);
    const sentBeforeStop = [...a.gateway.textsTo(T)];
    expect(stopped).toBe(true);
    a.gates.openAll();
    await stopping;
    expect(sentBeforeStop).toEqual([]);

    const b = await open({ dir });
    b.gates.openAll();
    await b.session.idle();
    expect(b.runs.starts.map((s) => s.input)).toEqual(["use wait_gate slow"]);
    expect(b.gateway.textsTo(T)).toEqual(["The tool wait_gate returned: opened."]);
  });

  it("lets a running turn finish within drainMs and starts no queued turn once stopping", async () => {
    const dir = freshDir();
    const a = await rig({ dir, gatewaySession: { policy: "queue" } });
    await a.gateway.inject({ thread: T, text: "use wait_gate first" });
    await until(() => a.gates.calls.length === 1, "the first turn at its gate");
    await a.gateway.inject({ thread: T, text: "queued second" });
    await until(() => a.session.snapshot("mock", T).queued === 1, "the second message queued");

    const stopping = a.close(10_000);
    await new Promise((res) => setTimeout(res, 50));
    await a.gates.openNext();
    await stopping;
    expect(a.runs.starts.map((s) => s.input)).toEqual(["use wait_gate first"]);
    expect(a.gateway.textsTo(T)).toEqual(["The tool wait_gate returned: opened."]);
    // Not started, it still waits in its thread's queue (the snapshot counts it).
    expect(a.session.snapshot("mock", T)).toMatchObject({ running: false, queued: 1 });

    // The queued message was left recorded, not failed: the next start runs it, once.
    const b = await open({ dir });
    await b.session.idle();
    expect(b.runs.starts.map((s) => s.input)).toEqual(["queued second"]);
    expect(youSaid(b.gateway.textsTo(T))).toEqual(["queued second"]);
  });
});
