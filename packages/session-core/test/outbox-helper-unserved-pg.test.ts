// A helper given no outbox partition (outbox-shares.ts): asked to help with a backlog, it queues for
// the roles the leader gives up, but the other helpers took them all. It runs no sender, so no pass
// ever told it the backlog was over: it stayed in line for good, a lock try on each role every retry
// period at rest, and took a role only when its holder gave it back (a take, an empty pass and a
// give-back). Now it leaves the line once it has been given nothing for the helper idle time. Roles
// are advisory locks on real PostgreSQL links (pg-cluster Leadership), as the server's coordination.
import { InstanceLink, Leadership } from "@agentsvc/pg-cluster";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Coordination } from "../src/coordination.js";
import { OUTBOX_PARTITIONS } from "../src/outbox-shares.js";
import { fakeSender, sharesOver } from "./outbox-shares-fixture.js";
import { until } from "./session-harness.js";

const ended: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const end of ended.splice(0).reverse()) await end();
});

/** A link to `url` and its Leadership, retrying every 50 ms. */
async function leadershipOn(url: string) {
  const link = new InstanceLink({ connectionString: url, healthCheckMs: 0 });
  await link.connect();
  ended.push(() => link.close());
  const leadership = new Leadership(link, { retryMs: 50, drainMs: 100 });
  ended.push(() => leadership.stop());
  return leadership;
}

describe.skipIf(postgresMissing)(
  "an instance asked to help with an outbox backlog, given no partition",
  () => {
    // The server starts in the hook's time, not the test's: under load its start took much of a 20-30 s
    // test budget (timed out at load 25).
    let server: TestPostgres;
    beforeAll(async () => {
      server = await startPostgres();
    });
    afterAll(() => server?.stop());
    it("leaves the line for the roles: given up later by their holder, they do not come to it", async () => {
      const url = await server.createDatabase();
      // Another instance holds every partition a helper may take.
      const holder = await leadershipOn(url);
      const held = Array.from({ length: OUTBOX_PARTITIONS - 1 }, (_, i) =>
        holder.lead(`outbox:${i + 1}`, { onAcquired: () => undefined }),
      );
      await until(() => holder.leading().length === OUTBOX_PARTITIONS - 1, "the holder leads the partitions");
      const leadership = await leadershipOn(url);
      const coordination = {
        shared: true,
        lead(role: string, handlers: { onLead(): unknown; onLose(): unknown }) {
          const handle = leadership.lead(role, {
            onAcquired: () => void handlers.onLead(),
            onLost: () => void handlers.onLose(),
          });
          return () => handle.stop();
        },
        publish: async () => {},
      } as unknown as Coordination;
      const { sender, calls } = fakeSender();
      const started = () => calls.filter((c) => c === "start").length;
      const lines: string[] = [];
      const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
      const shares = sharesOver(coordination, sender, {
        gateways: () => ["mock"],
        logger,
        helperIdleMs: 300,
      });
      ended.push(() => shares.stop());
      shares.help();
      await until(
        () => lines.some((l) => l.includes("leaving the line")),
        "the helper leaving the line",
        5_000,
      );
      // The holder gives every partition up: nobody is in line for them now.
      await Promise.all(held.map((h) => h.stop()));
      await new Promise((resolve) => setTimeout(resolve, 500)); // ten retry periods
      expect(leadership.leading()).toEqual([]);
      expect(started()).toBe(0);
    }, 30_000);
  },
);
