// A PostgreSQL store with two sessions of the test's own, for the tests of inbox accepts that announce
// their record to the thread's holder (pg-accept-announce*.test.ts): the recorder's link session and
// the holder's, listening on the channel.
import { afterEach, expect } from "vitest";
import { postgresDriver, postgresUrlOf, tempRoot } from "./helpers.js";
import type { ChatDb } from "../src/index.js";
import { type PgClient, storePg } from "./pg-statements.js";

/** A session of the test's own and its backend pid. */
export interface Session {
  client: PgClient;
  pid: number;
}

export interface AnnounceRig {
  db: ChatDb;
  link: Session;
  holder: Session;
  /** The notifications heard so far (markers left out), once every one sent before the call arrived. */
  settled(): Promise<string[]>;
}

/** Returns the rig's builder; what it opens is closed after each test (hook registered when called). */
export function useAnnounceRig(channel: string): () => Promise<AnnounceRig> {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });
  return async () => {
    const appRoot = tempRoot();
    const db = await postgresDriver.open({ appRoot });
    const url = await postgresUrlOf(appRoot);
    const clients: PgClient[] = [];
    open.push({
      async close() {
        for (const c of clients) await c.end();
        db.close();
        await db.closedSettled;
      },
    });
    const session = async (): Promise<Session> => {
      const client = new (storePg().Client)({ connectionString: url });
      await client.connect();
      clients.push(client);
      const pid = Number((await client.query("SELECT pg_backend_pid() AS pid")).rows[0]!.pid);
      return { client, pid };
    };
    const link = await session();
    const holder = await session();
    const heard: string[] = [];
    holder.client.on("notification", (n) => heard.push(n.payload ?? ""));
    await holder.client.query(`LISTEN ${channel}`);
    /** Every notification sent before now, heard: a marker sent after them arrives after them. */
    const settled = async () => {
      const marker = `marker ${heard.length}-${Math.random()}`;
      await link.client.query("SELECT pg_notify($1, $2)", [channel, marker]);
      for (let i = 0; i < 500 && !heard.includes(marker); i++) await new Promise((r) => setTimeout(r, 10));
      expect(heard).toContain(marker);
      return heard.filter((h) => !h.startsWith("marker "));
    };
    return { db, link, holder, settled };
  };
}
