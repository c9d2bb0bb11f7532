// Inbox accepts on PostgreSQL have a connection of their own (one of the pool's): a burst of
// messages is recorded and answered while turns hold every other connection, instead of queueing
// behind the turns' statements.
import type { RunOrigin } from "@agentsvc/agent-core";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { withOwnConnection } from "./pg-statements.js";

const origin: RunOrigin = { gateway: "g", thread: "t", meta: {} };

describe.skipIf(postgresMissing)("[postgres] the accept connection", () => {
  it("an inbox accept is recorded and committed while transactions hold every pooled connection and more wait", async () => {
    // The store's pool: 4, so 3 pooled connections + the accept one.
    await withOwnConnection(async (db, reader) => {
      let open!: () => void;
      const gate = new Promise<void>((r) => {
        open = r;
      });
      const started: Promise<void>[] = [];
      const holders: Promise<unknown>[] = [];
      try {
        // Three transactions each take a pooled connection and keep it until the gate opens; a fourth waits for one.
        for (let i = 0; i < 4; i++) {
          let began!: () => void;
          started.push(new Promise<void>((r) => (began = r)));
          holders.push(
            db.transaction(async () => {
              await db.inbox.get(0);
              began();
              await gate;
            }),
          );
        }
        await Promise.all(started.slice(0, 3));
        const result = await db.inbox.accept({
          gateway: "g",
          dedupKey: "k",
          thread: "t",
          text: "hi",
          origin,
        });
        expect(result.accepted).toBe(true);
        // Committed when answered: another connection sees it, while the transactions still hold theirs.
        const id = (result as { id: number }).id;
        const { rows } = await reader.query("SELECT text FROM inbox WHERE id = $1", [id]);
        expect(rows).toEqual([{ text: "hi" }]);
      } finally {
        open();
        await Promise.all(holders);
      }
    });
  }, 60_000);
});
