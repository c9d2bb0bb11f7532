// The callback's failures go through session-core's one classifier: a refusal that will never change
// (400, 404, 422 ...) is dead-lettered at once instead of using every attempt.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { signed } from "./client.js";
import { eventually, type HttpRig, httpRig } from "./rig.js";

const SECRET = "callback-secret";
const ENTRY = { name: "hooks", secretEnvVar: "HOOKS_SECRET" };
const ENV = { HOOKS_SECRET: SECRET };
let r: HttpRig | undefined;
let hook: Server | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
  hook?.closeAllConnections();
  await new Promise<void>((ok) => (hook ? hook.close(() => ok()) : ok()));
  hook = undefined;
});

/** A callback receiver answering every POST with `status`; counts what it got. */
async function receiver(status: number): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  hook = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      hits += 1;
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((ok) => hook?.listen(0, "127.0.0.1", ok));
  return { url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/cb`, hits: () => hits };
}

describe("callback failures", () => {
  it("dead-letters a reply whose callback answers 400 after one attempt", async () => {
    const cb = await receiver(400);
    r = await httpRig([{ ...ENTRY, callbackUrl: cb.url }], ENV);
    const res = await signed(r.base, "POST", "/gateways/hooks/events", {
      secret: SECRET,
      body: { id: "e-400", thread: "t400", text: "ping" },
    });
    expect([200, 202]).toContain(res.status);
    const db = r.db;
    await eventually(
      async () => (await db.outbox.list("hooks", "t400")).some((row) => row.status === "dead"),
      "the reply dead-lettered",
    );
    const rows = await db.outbox.list("hooks", "t400");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "dead", attempts: 1 });
    expect(cb.hits()).toBe(1);
  });
});
