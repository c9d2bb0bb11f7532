// The http gateway across restarts: the outbox (seq, callbacks) and the decision-replay guard live
// in the store, not in the process.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { signPayload } from "../src/index.js";
import { signed } from "./client.js";
import { eventually, type HttpRig, httpRig } from "./rig.js";

const SECRET = "durable-secret";
const ENTRY = { name: "hooks", secretEnvVar: "HOOKS_SECRET" };
const ENV = { HOOKS_SECRET: SECRET };
let r: HttpRig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

type Msg = { seq: number; kind: string; text: string; requestId?: string };
async function messages(rig: HttpRig, thread: string, after = 0): Promise<Msg[]> {
  const res = await signed(rig.base, "GET", `/gateways/hooks/threads/${thread}/messages?after=${after}`, {
    secret: SECRET,
  });
  return ((await res.json()) as { messages: Msg[] }).messages;
}

async function event(rig: HttpRig, id: string, thread: string, text: string) {
  const res = await signed(rig.base, "POST", "/gateways/hooks/events", {
    secret: SECRET,
    body: { id, thread, text },
  });
  expect([200, 202]).toContain(res.status);
}

async function requestOn(rig: HttpRig, thread: string): Promise<string> {
  await event(rig, `ev-${thread}`, thread, `use delete_file ${thread}.txt`);
  await eventually(
    async () => (await messages(rig, thread)).some((m) => m.kind === "interaction"),
    "an approval request",
  );
  return (await messages(rig, thread)).find((m) => m.kind === "interaction")?.requestId ?? "";
}

function decisionHeaders(signature: string, ts: number) {
  return {
    "content-type": "application/json",
    "X-Agentsvc-Timestamp": String(ts),
    "X-Agentsvc-Signature": signature,
  };
}

describe("http gateway durability", () => {
  it("keeps outbox seq increasing across a restart, so a reader with ?after never sees a reply twice or misses one", async () => {
    r = await httpRig([ENTRY], ENV);
    await event(r, "a-1", "t", "first");
    await eventually(async () => (await messages(r as HttpRig, "t")).length === 1, "the first message");
    const [first] = await messages(r, "t");
    const dir = r.dir;
    await r.close({ keep: true });
    r = await httpRig([ENTRY], ENV, { dir });
    await event(r, "a-2", "t", "second");
    await eventually(async () => (await messages(r as HttpRig, "t")).length === 2, "the second message");
    const after = await messages(r, "t", first?.seq);
    expect(after).toHaveLength(1);
    expect(after[0]?.text).toContain("second");
    expect(after[0]?.seq).toBeGreaterThan(first?.seq ?? 0);
  });

  it("refuses a decision signature in other spellings on another request, also after a restart", async () => {
    r = await httpRig([ENTRY], ENV);
    const ids = [await requestOn(r, "p1"), await requestOn(r, "p2"), await requestOn(r, "p3")];
    const body = JSON.stringify({ decision: "approve" });
    const ts = Math.floor(Date.now() / 1000);
    const hex = signPayload(SECRET, ts, body);
    const used = await fetch(`${r.base}/interactions/${ids[0]}/decisions`, {
      method: "POST",
      headers: decisionHeaders(`v1=${hex}`, ts),
      body,
    });
    expect(used.status).toBe(200);
    const spellings = [
      `v1=${hex.toUpperCase()}`,
      `v1=${hex},v1=${hex}`,
      `v1=${hex},`,
      `v0=abc,v1=${hex}`,
      ` v1=${hex} `,
    ];
    for (const spelling of spellings) {
      const replay = await fetch(`${r.base}/interactions/${ids[1]}/decisions`, {
        method: "POST",
        headers: decisionHeaders(spelling, ts),
        body,
      });
      expect(replay.status, spelling).toBe(401);
    }
    await r.session.idle();
    expect(r.executed).toEqual(["use delete_file p1.txt"]);
    const dir = r.dir;
    await r.close({ keep: true });
    r = await httpRig([ENTRY], ENV, { dir });
    for (const spelling of [`v1=${hex}`, ...spellings]) {
      const replay = await fetch(`${r.base}/interactions/${ids[2]}/decisions`, {
        method: "POST",
        headers: decisionHeaders(spelling, ts),
        body,
      });
      expect(replay.status, `after restart: ${spelling}`).toBe(401);
    }
    await r.session.idle();
    expect(r.executed).toEqual([]);
  });

  it("retries a refused callback until it is accepted, with the same idempotency key, and sends it once", async () => {
    const answers = [503, 429];
    const received: { key: string; text: string }[] = [];
    const hook = createServer((req, res) => {
      let raw = "";
      req.on("data", (c) => {
        raw += String(c);
      });
      req.on("end", () => {
        const status = answers.shift();
        const msg = JSON.parse(raw) as { idempotencyKey: string; text: string };
        received.push({ key: msg.idempotencyKey, text: msg.text });
        res.writeHead(status ?? 204, status === 429 ? { "retry-after": "0" } : {}).end();
      });
    });
    await new Promise<void>((ok) => hook.listen(0, "127.0.0.1", ok));
    try {
      const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/cb`;
      r = await httpRig([{ ...ENTRY, callbackUrl: url }], ENV);
      await event(r, "cb-1", "cb", "ping");
      await eventually(() => received.length === 3, "three callback attempts", 15_000);
      await r.session.idle();
      expect(new Set(received.map((m) => m.key)).size).toBe(1);
      expect(received.every((m) => m.text.includes("ping"))).toBe(true);
      await new Promise((ok) => setTimeout(ok, 200));
      expect(received).toHaveLength(3);
    } finally {
      hook.closeAllConnections();
      await new Promise<void>((ok) => hook.close(() => ok()));
    }
  });
});
