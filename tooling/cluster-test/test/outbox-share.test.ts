// Three instances over one PostgreSQL share an outbox backlog (session-core's outbox-shares.ts):
// 3,000 WhatsApp replies on 200 threads are written at once; the leader asks for help, so more than
// one instance sends, no piece goes twice and each thread's pieces arrive in order. Then a helper
// is SIGKILLed mid-backlog: its partitions go to the others and every piece is still sent, the
// only repeats being pieces it had in flight (sent again with the same idempotency key).
// Each instance sends through its own fake Graph API, so the test knows who sent what.
import { resolve } from "node:path";
import { type ChatDb, openPostgresChatDb } from "@agentsvc/chat-store";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { eventually, FakeWhatsApp } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Instance } from "./instances.js";

const project = resolve(import.meta.dirname, "fixtures/outbox-share");
const THREADS = 200;
const PER_THREAD = 15;
/** The outbox sender's batch (OutboxOptions.concurrency default): what one instance has in flight. */
const IN_FLIGHT = 8;
const WA = { accessToken: "wa-token", phoneNumberId: "1000", appSecret: "wa-secret" };

let pg: TestPostgres;
let store: ChatDb;
const instances: Instance[] = [];
const fakes = new Map<string, FakeWhatsApp>();
/** Every piece any fake took, in arrival order (the fakes share this process's event loop). */
const arrivals: { by: string; text: string }[] = [];

const phone = (t: number) => String(15550000000 + t);

describe.skipIf(postgresMissing)("three instances sharing an outbox backlog over one PostgreSQL", () => {
  beforeAll(async () => {
    pg = await startPostgres();
    const url = await pg.createDatabase();
    for (const name of ["a", "b", "c"]) {
      const fake = await FakeWhatsApp.start(WA);
      const push = fake.sent.push.bind(fake.sent);
      fake.sent.push = (...sent) => {
        for (const s of sent) arrivals.push({ by: name, text: s.text });
        return push(...sent);
      };
      fakes.set(name, fake);
      const env = {
        CLUSTER_DB_URL: url,
        WA_TOKEN: WA.accessToken,
        WA_PHONE_ID: WA.phoneNumberId,
        WA_APP_SECRET: WA.appSecret,
        WA_VERIFY_TOKEN: "verify",
        WA_API_URL: fake.url,
      };
      instances.push(new Instance(name, env, project));
    }
    // The first alone, so it leads; the schema is migrated once.
    await instances[0]?.start();
    await Promise.all(instances.slice(1).map((i) => i.start()));
    store = await openPostgresChatDb({
      name: "main",
      datasource: { type: "postgres", urlEnvVar: "URL", pool: 2, ssl: "off" },
      appRoot: "/tmp",
      env: { URL: url },
    });
  }, 120_000);

  afterAll(async () => {
    for (const i of instances) await i.stop();
    store?.close();
    await store?.closedSettled;
    for (const fake of fakes.values()) await fake.close();
    await pg?.stop();
  });

  it("sends a backlog from more than one instance, once each and in per-thread order, and finishes it after a helper is SIGKILLed", async () => {
    await eventually(() => instances[0]?.logged(/this instance leads/) === true, "a leads", 60_000);
    const pieces = Array.from({ length: THREADS * PER_THREAD }, (_, n) => {
      const [t, i] = [n % THREADS, Math.floor(n / THREADS)];
      return {
        gateway: "whatsapp",
        thread: phone(t),
        idemKey: `wa:${t}:${i}`,
        kind: "text" as const,
        payload: { text: `t${t}:${i}` },
      };
    });
    await store.transaction(() => store.outbox.enqueue(pieces));
    const senders = () => new Set(arrivals.map((s) => s.by));
    await eventually(() => senders().size >= 2, "a second instance sending", 60_000);
    const beforeKill = arrivals.map((s) => s.text);
    expect(new Set(beforeKill).size, "no piece twice before the kill").toBe(beforeKill.length);
    expect(beforeKill.length, "the backlog is not sent yet").toBeLessThan(pieces.length);
    const helperName = [...senders()].find((name) => name !== "a") as string;
    const helper = instances.find((i) => i.name === helperName) as Instance;
    expect(await helper.kill()).toBe("SIGKILL");
    await eventually(
      async () => (await store.outbox.countByStatus("sent")) === pieces.length,
      "every piece marked sent",
      120_000,
    );
    expect(await store.outbox.countByStatus("pending")).toBe(0);
    expect(await store.outbox.countByStatus("dead")).toBe(0);
    const texts = arrivals.map((s) => s.text);
    expect(new Set(texts).size).toBe(pieces.length);
    // Repeats: only what the killed helper had in flight, at most one batch.
    const seen = new Set<string>();
    const repeats = texts.filter((text) => seen.has(text) || !seen.add(text));
    expect(repeats.length).toBeLessThanOrEqual(IN_FLIGHT);
    const byHelper = new Set(arrivals.filter((s) => s.by === helperName).map((s) => s.text));
    for (const text of repeats) expect(byHelper.has(text), `${text} repeated`).toBe(true);
    // Each thread in the order its pieces were written (first arrivals).
    for (let t = 0; t < THREADS; t++) {
      const order = [...new Set(texts.filter((text) => text.startsWith(`t${t}:`)))];
      expect(order, `thread t${t}`).toEqual(Array.from({ length: PER_THREAD }, (_, i) => `t${t}:${i}`));
    }
  }, 300_000);
});
