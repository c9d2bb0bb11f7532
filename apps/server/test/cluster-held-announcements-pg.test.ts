// Thread announcements found held reach only the instances that want them (#45.3): with three
// instances most announcements each one hears are of threads another instance holds, and each was
// JSON-parsed only for the session to drop it. The coordination hands the bus the session's
// `wantsHeld`, and an unwanted held announcement is dropped before its JSON is parsed: the one the
// inbox INSERT sends (recordAnnounce's payload with the record's id added in SQL), a failed take's,
// a publish's. Announcements not found held, and other kinds, still reach every instance.
// Three coordinations over a real PostgreSQL; the parses counted with a spy on JSON.parse.
import { InstanceLink } from "@agentsvc/pg-cluster";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import type { ClusterMessage } from "@agentsvc/session-core";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type PgCoordination, pgCoordination } from "../src/cluster/pg-coordination.js";

const HELD_KEY = "gw:http:held one";

describe.skipIf(postgresMissing)("held thread announcements over PostgreSQL", () => {
  let server: TestPostgres;
  let url: string;
  beforeAll(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(() => vi.restoreAllMocks());

  it("reach the instance that wants them, are dropped unparsed by the others; the rest reach everyone", async () => {
    const made: PgCoordination[] = [];
    const mon = new InstanceLink({ connectionString: url, healthCheckMs: 0 });
    await mon.connect();
    try {
      const coordination = async () => {
        const c = await pgCoordination({ connectionString: url, logger: pino({ level: "silent" }) });
        made.push(c);
        return c;
      };
      const holder = await coordination();
      const recorder = await coordination();
      const other = await coordination();
      expect(await holder.acquireThread(HELD_KEY)).toBe(true);
      const heard = { holder: [] as string[], other: [] as string[] };
      const label = (m: ClusterMessage) =>
        m.kind === "thread"
          ? `${m.held ? "held" : "free"} ${m.thread} ${m.id}`
          : m.kind === "run"
            ? `run ${m.threadId}`
            : m.kind;
      holder.subscribe((m) => void heard.holder.push(label(m)), { wantsHeld: (key) => key === HELD_KEY });
      other.subscribe((m) => void heard.other.push(label(m)), { wantsHeld: () => false });
      const parsed: string[] = [];
      const parse = JSON.parse;
      vi.spyOn(JSON, "parse").mockImplementation((text: string, reviver?: Parameters<typeof parse>[1]) => {
        if (typeof text === "string" && text.includes('"held":true')) parsed.push(text);
        return parse(text, reviver);
      });

      const held = { kind: "thread", gateway: "http", thread: "held one", held: true } as const;
      // The inbox INSERT's NOTIFY: recordAnnounce's payload, the record's id and the rest added in SQL.
      const announce = recorder.recordAnnounce?.(HELD_KEY, held);
      expect(announce).toBeDefined();
      await mon.query(`SELECT pg_notify($1, left($2, -1) || ',"id":1,"record":{"text":"hi"},"prior":[]}')`, [
        announce?.channel,
        announce?.payload,
      ]);
      expect(await recorder.acquireOrAnnounce?.(HELD_KEY, { ...held, id: 2 })).toBe("announced");
      await recorder.publish({ ...held, id: 3 });
      await recorder.publish({ kind: "thread", gateway: "http", thread: "free one", id: 4 });
      // A run control's target is its thread id, whatever it says: not a held announcement.
      await recorder.publish({
        kind: "run",
        action: "cancel",
        id: "r",
        threadId: "held:gw:http:held one",
        userId: "u",
      });
      await recorder.publish({ kind: "thread", gateway: "http", thread: "end", id: 5 });
      const end = (got: string[]) => got.includes("free end 5");
      for (let i = 0; i < 250 && !(end(heard.holder) && end(heard.other)); i++)
        await new Promise((r) => setTimeout(r, 20));

      expect(heard.holder).toEqual([
        "held held one 1",
        "held held one 2",
        "held held one 3",
        "free free one 4",
        "run held:gw:http:held one",
        "free end 5",
      ]);
      expect(heard.other).toEqual(["free free one 4", "run held:gw:http:held one", "free end 5"]);
      // The three held ones parsed by their holder only.
      expect(parsed).toHaveLength(3);
    } finally {
      for (const c of made) await c.close();
      await mon.close();
    }
  }, 30_000);
});
