// A message queued behind a turn that ends while the session stops is left queued in the store, not
// moved to running with that turn's end (turns.ts: the next record goes to running with the end only
// when its turn will start). Found by a mutation run of turns.ts (#45): the stop tests counted the
// turns and the snapshot, not the record's status.
import { ChatDb } from "@agentsvc/chat-store";
import { afterEach, describe, expect, it } from "vitest";
import { removeDir, rig, tempDir, until } from "./session-harness.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

describe("a stop while a turn runs with a message queued behind it", () => {
  it("leaves the queued message's record queued when the turn ends", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const r = await rig({ dir, gatewaySession: { policy: "queue" } });
    await r.gateway.inject({ thread: "T", text: "use wait_gate first" });
    await until(() => r.gates.calls.length === 1, "the first turn at its gate");
    await r.gateway.inject({ thread: "T", text: "queued second" });
    await until(() => r.session.snapshot("mock", "T").queued === 1, "the second message queued");
    const stopping = r.close(10_000); // stopping from here on
    await r.gates.openNext();
    await stopping;
    const db = ChatDb.open({ appRoot: dir, path: "data/chat.db" });
    try {
      const records = await db.inbox.unfinished();
      expect(records.map((rec) => [rec.text, rec.status])).toEqual([["queued second", "queued"]]);
    } finally {
      db.close();
    }
  });
});
