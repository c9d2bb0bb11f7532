// PostgreSQL step 15: the outbox heads triggers' statements read outbox_heads by primary key and
// outbox by outbox_thread_pending even when autoanalyze last saw both tables empty (outbox_heads is
// empty whenever every reply is sent): their cached plans seq-scanned every head row and every piece
// for each piece inserted or marked sent (#45.2). The plans are read from auto_explain (nested
// statements, sent to this client as notices); scan nodes are asserted, never a time. Steps 18 and 20:
// their plans, and the trigger function's calls of them, cached under a session forcing custom plans.
import { postgresMissing } from "@agentsvc/pg-test";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { migratedDatabases } from "./migrated-postgres.js";

/**
 * The plans auto_explain sends `client` as notices while `work` runs: every statement's, nested ones
 * (the triggers' and their functions') included, with `settings` SET besides auto_explain's own.
 */
async function explainedPlans(
  client: pg.Client,
  settings: string[],
  work: () => Promise<void>,
): Promise<string[]> {
  const plans: string[] = [];
  client.on("notice", (n) => plans.push(n.message ?? ""));
  await client.query("LOAD 'auto_explain'");
  const explain = ["log_min_duration = 0", "log_nested_statements = on", "log_level = notice"];
  await client.query(
    [...explain.map((e) => `auto_explain.${e}`), ...settings].map((e) => `SET ${e}`).join("; "),
  );
  await work();
  return plans;
}

/**
 * The scan nodes (`Seq Scan on outbox_heads`, ...) of the plans of the triggers' own statements on
 * `client`, a database migrated through step 15.
 */
async function triggerScans(client: pg.Client): Promise<string[]> {
  // What autoanalyze sees between bursts: nothing pending, no head.
  await client.query("ANALYZE outbox; ANALYZE outbox_heads");
  await client.query(
    `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, next_attempt_at, created_at)
     SELECT 'g', 't' || i, 'k' || i, 'text', '{}', 'pending', 0, 0 FROM generate_series(1, 300) i`,
  );
  const plans = await explainedPlans(client, ["client_min_messages = notice"], async () => {
    // Past the five custom plans: the cached generic plan is what a busy connection runs.
    for (let id = 1; id <= 12; id++) await client.query(`UPDATE outbox SET status = 'sent' WHERE id = ${id}`);
    await client.query(
      `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, next_attempt_at, created_at)
       SELECT 'g', 'u' || i, 'u' || i, 'text', '{}', 'pending', 0, 0 FROM generate_series(1, 12) i`,
    );
  });
  // The UPDATE and INSERT above are this test's; the rest are the functions' statements.
  return plans
    .filter((p) => !/Query Text: (UPDATE outbox|INSERT INTO outbox \(gateway)/.test(p))
    .flatMap((p) => [
      ...p.matchAll(/(Seq Scan|Index Scan|Index Only Scan|Bitmap Heap Scan) (?:using \S+ )?on (\w+)/g),
    ])
    .map((m) => `${m[1]} on ${m[2]}`);
}

describe.skipIf(postgresMissing !== undefined)("[postgres] step 15: the outbox heads triggers' plans", () => {
  const migrated = migratedDatabases();

  it("read and write by key, after autoanalyze saw outbox_heads and outbox empty", async () => {
    const scans = await migrated.using(15, triggerScans);
    // Each sent mark: the head row locked and deleted, the thread's next piece looked up; each insert: the upsert.
    expect(scans.filter((s) => s.endsWith("outbox_heads")).length).toBeGreaterThanOrEqual(24);
    expect(scans.filter((s) => s.endsWith("on outbox")).length).toBeGreaterThanOrEqual(12);
    expect(scans.filter((s) => s.startsWith("Seq Scan"))).toEqual([]);
  }, 60_000);
});

/**
 * The plans of the triggers' own statements on `client` (a database migrated through some step) in
 * a session that plans every statement for its parameters, as store-postgres's connections do
 * (plan_cache_mode force_custom_plan): how many are cached generic plans, which name plpgsql's
 * variables as parameters (`$1`), against custom plans, which carry their values.
 */
async function triggerPlanKinds(client: pg.Client): Promise<{ generic: number; custom: number }> {
  await client.query(
    `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, next_attempt_at, created_at)
     SELECT 'g', 't' || i, 'k' || i, 'text', '{}', 'pending', 0, 0 FROM generate_series(1, 12) i`,
  );
  const plans = await explainedPlans(client, ["plan_cache_mode = force_custom_plan"], async () => {
    for (let id = 1; id <= 12; id++) await client.query(`UPDATE outbox SET status = 'sent' WHERE id = ${id}`);
  });
  const own = plans
    .filter((p) =>
      /Query Text: (SELECT|UPDATE|DELETE|INSERT INTO) outbox_heads|FROM outbox_heads|FROM outbox\b/.test(p),
    )
    .filter((p) => !/Query Text: UPDATE outbox SET/.test(p));
  const generic = own.filter((p) => /(Cond|Filter): .*\$\d/.test(p)).length;
  return { generic, custom: own.length - generic };
}

describe.skipIf(postgresMissing !== undefined)("[postgres] step 18: the heads triggers' plans cached", () => {
  const migrated = migratedDatabases();

  it("the functions' statements keep a cached generic plan when the session forces custom plans", async () => {
    const { generic, custom } = await migrated.using(18, triggerPlanKinds);
    // 12 sent marks, each three statements (the head locked, the next piece read, the head deleted):
    // the first five runs of each custom, as PostgreSQL's plan cache does, then the cached plan.
    expect({ generic, custom }).toEqual({ generic: 21, custom: 15 });
  }, 60_000);

  it("at step 17 they were planned again at each call", async () => {
    const { generic, custom } = await migrated.using(17, triggerPlanKinds);
    expect({ generic, custom }).toEqual({ generic: 0, custom: 36 });
  }, 60_000);
});

/**
 * The plans of the trigger function's own calls (`PERFORM outbox_head_added(...)` and
 * `outbox_head_refresh(...)`) on `client` (a database migrated through some step), in a session
 * forcing custom plans as store-postgres's do: a cached generic plan names plpgsql's variables as
 * parameters in its output (`$1`), a custom plan carries their values.
 */
async function triggerCallPlanKinds(client: pg.Client): Promise<{ generic: number; custom: number }> {
  const settings = ["plan_cache_mode = force_custom_plan", "auto_explain.log_verbose = on"];
  const plans = await explainedPlans(client, settings, async () => {
    // 8 pieces inserted one a statement, then 8 marked sent: 16 calls of the trigger function.
    for (let i = 1; i <= 8; i++)
      await client.query(
        `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, next_attempt_at, created_at)
         VALUES ('g', 't${i}', 'k${i}', 'text', '{}', 'pending', 0, 0)`,
      );
    for (let i = 1; i <= 8; i++)
      await client.query(`UPDATE outbox SET status = 'sent' WHERE idem_key = 'k${i}'`);
  });
  const calls = plans.filter((p) => /Query Text: SELECT outbox_head_(added|refresh)\(/.test(p));
  const generic = calls.filter((p) => /Output: outbox_head_(added|refresh)\(\$\d/.test(p)).length;
  return { generic, custom: calls.length - generic };
}

describe.skipIf(postgresMissing !== undefined)(
  "[postgres] step 20: the heads trigger function's calls cached",
  () => {
    const migrated = migratedDatabases();

    it("its calls of the heads functions keep a cached generic plan when the session forces custom plans", async () => {
      const { generic, custom } = await migrated.using(20, triggerCallPlanKinds);
      // Each call's first five runs custom, as PostgreSQL's plan cache does, then the cached plan.
      expect({ generic, custom }).toEqual({ generic: 6, custom: 10 });
    }, 60_000);

    it("at step 19 they were planned again for every piece", async () => {
      const { generic, custom } = await migrated.using(19, triggerCallPlanKinds);
      expect({ generic, custom }).toEqual({ generic: 0, custom: 16 });
    }, 60_000);
  },
);
