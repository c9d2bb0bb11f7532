// The http gateway routes against a real session: durable ingest, outbox, interactions, decisions.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { signPayload } from "../src/index.js";
import { body, signed } from "./client.js";
import { eventually, type HttpRig, httpRig } from "./rig.js";

const SECRET = "route-secret";
const OTHER = "other-secret";
let r: HttpRig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

async function open(extra: { callbackUrl?: string } = {}) {
  r = await httpRig(
    [
      { name: "hooks", secretEnvVar: "HOOKS_SECRET", ...extra },
      { name: "partner", secretEnvVar: "PARTNER_SECRET" },
    ],
    { HOOKS_SECRET: SECRET, PARTNER_SECRET: OTHER },
  );
  return r;
}

type Msg = { seq: number; kind: string; text: string; requestId?: string; toolName?: string };
async function messages(rig: HttpRig, thread: string, after = 0): Promise<Msg[]> {
  const res = await signed(rig.base, "GET", `/gateways/hooks/threads/${thread}/messages?after=${after}`, {
    secret: SECRET,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: Msg[] }).messages;
}

describe("POST /gateways/:gatewayName/events", () => {
  it("answers 202 only once the event is recorded, and the reply becomes readable on the thread", async () => {
    const rig = await open();
    const res = await signed(rig.base, "POST", "/gateways/hooks/events", {
      secret: SECRET,
      body: { id: "ev-1", thread: "th", text: "hi" },
    });
    expect(res.status).toBe(202);
    const created = (await res.json()) as { success: boolean; accepted: boolean; id: number };
    expect(created).toMatchObject({ success: true, accepted: true });
    expect(await rig.db.inbox.get(created.id)).toMatchObject({
      gateway: "hooks",
      dedupKey: "ev-1",
      thread: "th",
      text: "hi",
    });
    await eventually(async () => (await messages(rig, "th")).length === 1, "one message in the thread");
    expect((await messages(rig, "th"))[0]).toMatchObject({
      kind: "reply",
      text: expect.stringContaining('You said: "hi"'),
    });
  });

  it("answers 200 duplicate on a repeated id and runs it once", async () => {
    const rig = await open();
    const send = () =>
      signed(rig.base, "POST", "/gateways/hooks/events", {
        secret: SECRET,
        body: { id: "ev-2", thread: "th2", text: "once" },
      });
    expect((await send()).status).toBe(202);
    const again = await send();
    expect(again.status).toBe(200);
    expect(await body(again)).toEqual({ success: true, duplicate: true });
    await rig.session.idle();
    expect(await messages(rig, "th2")).toHaveLength(1);
  });

  it("refuses malformed bodies with 400 naming the field", async () => {
    const rig = await open();
    const cases: [unknown, string][] = [
      [[1, 2], "body: expected a JSON object"],
      [{ thread: "t", text: "x" }, "body.id"],
      [{ id: "a", thread: "", text: "x" }, "body.thread"],
      [{ id: "a", thread: "t", text: 5 }, "body.text"],
    ];
    for (const [payload, field] of cases) {
      const res = await signed(rig.base, "POST", "/gateways/hooks/events", { secret: SECRET, body: payload });
      expect(res.status).toBe(400);
      expect((await body(res)).error.message).toContain(field);
    }
  });

  it("refuses a 100,000-deep meta with 400 naming the field, not 500 'retry it' (a client would retry forever)", async () => {
    const rig = await open();
    const deep = `{"id":"deep","thread":"t","text":"x","meta":${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}}`;
    const res = await signed(rig.base, "POST", "/gateways/hooks/events", {
      secret: SECRET,
      raw: new TextEncoder().encode(deep),
    });
    expect(res.status).toBe(400);
    expect((await body(res)).error.message).toContain("body.meta: nested deeper than 32 levels");
    // 32 levels are taken.
    const ok = await signed(rig.base, "POST", "/gateways/hooks/events", {
      secret: SECRET,
      raw: new TextEncoder().encode(
        `{"id":"deep32","thread":"t","text":"x","meta":${'{"a":'.repeat(31)}1${"}".repeat(31)}}`,
      ),
    });
    expect(ok.status).toBe(202);
  });

  it("refuses a text over 200,000 characters with 413 message_too_large, and takes one of exactly that many", async () => {
    const rig = await open();
    const post = (id: string, text: string) =>
      signed(rig.base, "POST", "/gateways/hooks/events", {
        secret: SECRET,
        body: { id, thread: "big", text },
      });
    const over = await post("big1", "x".repeat(200_001));
    expect(over.status).toBe(413);
    expect((await body(over)).error).toMatchObject({ code: "message_too_large" });
    expect((await post("big2", "x".repeat(200_000))).status).toBe(202);
  });

  it("answers 404 for an unknown gateway and rejects another gateway's secret", async () => {
    const rig = await open();
    const unknown = await signed(rig.base, "POST", "/gateways/nope/events", {
      secret: SECRET,
      body: { id: "x", thread: "t", text: "" },
    });
    expect(unknown.status).toBe(404);
    const crossed = await signed(rig.base, "POST", "/gateways/hooks/events", {
      secret: OTHER,
      body: { id: "x", thread: "t", text: "" },
    });
    expect(crossed.status).toBe(401);
  });

  it("keeps outbox reads incremental with ?after", async () => {
    const rig = await open();
    for (const id of ["a1", "a2"]) {
      await signed(rig.base, "POST", "/gateways/hooks/events", {
        secret: SECRET,
        body: { id, thread: "inc", text: id },
      });
      await rig.session.idle();
    }
    const all = await messages(rig, "inc");
    expect(all).toHaveLength(2);
    const later = await messages(rig, "inc", all[0]?.seq);
    expect(later.map((m) => m.seq)).toEqual([all[1]?.seq]);
    const bad = await signed(rig.base, "GET", "/gateways/hooks/threads/inc/messages?after=-1", {
      secret: SECRET,
    });
    expect(bad.status).toBe(400);
  });
});

describe("interactions", () => {
  async function pending(rig: HttpRig, thread = "appr") {
    await signed(rig.base, "POST", "/gateways/hooks/events", {
      secret: SECRET,
      body: { id: `ev-${thread}`, thread, text: "use delete_file plan.txt" },
    });
    await eventually(
      async () => (await messages(rig, thread)).some((m) => m.kind === "interaction"),
      "an approval request",
    );
    const msg = (await messages(rig, thread)).find((m) => m.kind === "interaction");
    return msg?.requestId ?? "";
  }

  it("GET shows the request with its tool, arguments and allowed decisions", async () => {
    const rig = await open();
    const id = await pending(rig);
    const res = await signed(rig.base, "GET", `/interactions/${id}`, { secret: SECRET });
    expect(res.status).toBe(200);
    expect((await body(res)).interaction).toMatchObject({
      requestId: id,
      gateway: "hooks",
      thread: "appr",
      toolName: "delete_file",
      arguments: { note: "use delete_file plan.txt" },
      allowedDecisions: expect.arrayContaining(["approve", "reject"]),
      status: "open",
    });
  });

  it("POST decision resumes the run, records decidedBy from the signer (not the body) and refuses a second one", async () => {
    const rig = await open();
    const id = await pending(rig);
    const res = await signed(rig.base, "POST", `/interactions/${id}/decisions`, {
      secret: SECRET,
      body: { decision: "approve", decidedBy: "mallory" },
    });
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ success: true, decision: "approve", decidedBy: "http:hooks" });
    await rig.session.idle();
    expect(rig.executed).toEqual(["use delete_file plan.txt"]);
    expect((await rig.db.interactions.get(id))?.decision).toMatchObject({
      decision: "approve",
      decidedBy: "http:hooks",
    });
    expect((await messages(rig, "appr")).at(-1)).toMatchObject({
      kind: "reply",
      text: "The tool delete_file returned: deleted.",
    });
    const again = await signed(rig.base, "POST", `/interactions/${id}/decisions`, {
      secret: SECRET,
      body: { decision: "reject" },
    });
    expect(again.status).toBe(409);
  });

  it("hides a request from another gateway's signer and refuses bad decisions", async () => {
    const rig = await open();
    const id = await pending(rig);
    const foreign = await signed(rig.base, "GET", `/interactions/${id}`, { secret: OTHER });
    expect(foreign.status).toBe(404);
    const foreignDecision = await signed(rig.base, "POST", `/interactions/${id}/decisions`, {
      secret: OTHER,
      body: { decision: "approve" },
    });
    expect(foreignDecision.status).toBe(404);
    const bad = await signed(rig.base, "POST", `/interactions/${id}/decisions`, {
      secret: SECRET,
      body: { decision: "maybe" },
    });
    expect(bad.status).toBe(400);
    expect((await body(bad)).error.message).toContain("body.decision");
    const unknown = await signed(rig.base, "POST", "/interactions/req_nope/decisions", {
      secret: SECRET,
      body: { decision: "approve" },
    });
    expect(unknown.status).toBe(404);
    expect(rig.executed).toEqual([]);
  });

  it("refuses a captured decision signature replayed onto another request", async () => {
    const rig = await open();
    const first = await pending(rig, "p1");
    const second = await pending(rig, "p2");
    const body = JSON.stringify({ decision: "approve" });
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      "content-type": "application/json",
      "X-Agentsvc-Timestamp": String(ts),
      "X-Agentsvc-Signature": `v1=${signPayload(SECRET, ts, body)}`,
    };
    const ok = await fetch(`${rig.base}/interactions/${first}/decisions`, { method: "POST", headers, body });
    expect(ok.status).toBe(200);
    const replay = await fetch(`${rig.base}/interactions/${second}/decisions`, {
      method: "POST",
      headers,
      body,
    });
    expect(replay.status).toBe(401);
    await rig.session.idle();
    expect(rig.executed).toEqual(["use delete_file plan.txt"]);
  });
});

describe("decision signatures bound to their request (#22 item 9)", () => {
  async function pending(rig: HttpRig, thread: string) {
    await signed(rig.base, "POST", "/gateways/hooks/events", {
      secret: SECRET,
      body: { id: `ev-${thread}`, thread, text: "use delete_file plan.txt" },
    });
    await eventually(
      async () => (await messages(rig, thread)).some((m) => m.kind === "interaction"),
      "an approval request",
    );
    return (await messages(rig, thread)).find((m) => m.kind === "interaction")?.requestId ?? "";
  }

  /** Scheme v2 as the README documents it: HMAC over "<timestamp>." + "<METHOD> <target>\n" + body. */
  function v2Headers(target: string, body: string, ts: number) {
    return {
      "content-type": "application/json",
      "X-Agentsvc-Timestamp": String(ts),
      "X-Agentsvc-Signature": `v2=${signPayload(SECRET, ts, `POST ${target}\n${body}`)}`,
    };
  }

  it("applies two approvals with identical bodies signed in the same second to two requests", async () => {
    const rig = await open();
    const first = await pending(rig, "same-1");
    const second = await pending(rig, "same-2");
    const body = JSON.stringify({ decision: "approve" });
    const ts = Math.floor(Date.now() / 1000);
    for (const id of [first, second]) {
      const target = `/interactions/${id}/decisions`;
      const res = await fetch(`${rig.base}${target}`, {
        method: "POST",
        headers: v2Headers(target, body, ts),
        body,
      });
      expect(res.status).toBe(200);
    }
    await rig.session.idle();
    expect(rig.executed).toEqual(["use delete_file plan.txt", "use delete_file plan.txt"]);
  });

  it("refuses a v2 decision signature moved to another request's path", async () => {
    const rig = await open();
    const first = await pending(rig, "move-1");
    const second = await pending(rig, "move-2");
    const body = JSON.stringify({ decision: "approve" });
    const headers = v2Headers(`/interactions/${first}/decisions`, body, Math.floor(Date.now() / 1000));
    const moved = await fetch(`${rig.base}/interactions/${second}/decisions`, {
      method: "POST",
      headers,
      body,
    });
    expect(moved.status).toBe(401);
    expect(rig.executed).toEqual([]);
  });

  it("still accepts an old body-only v1 decision signature for one release, logging a deprecation warning", async () => {
    const rig = await open();
    const id = await pending(rig, "old-1");
    const body = JSON.stringify({ decision: "approve" });
    const ts = Math.floor(Date.now() / 1000);
    const res = await fetch(`${rig.base}/interactions/${id}/decisions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "X-Agentsvc-Timestamp": String(ts),
        "X-Agentsvc-Signature": `v1=${signPayload(SECRET, ts, body)}`,
      },
      body,
    });
    expect(res.status).toBe(200);
    const warning = rig.logs().find((l) => l.level === 40 && String(l.msg).includes("deprecated"));
    expect(warning).toMatchObject({ name: "gateway-http" });
    expect(String(warning?.msg)).toContain("v2");
  });
});

describe("callbackUrl", () => {
  it("POSTs each outbox message to the callback, signed with the gateway's secret", async () => {
    const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    const hook = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += String(c);
      });
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((ok) => hook.listen(0, "127.0.0.1", ok));
    try {
      const port = (hook.address() as AddressInfo).port;
      const rig = await open({ callbackUrl: `http://127.0.0.1:${port}/cb` });
      await signed(rig.base, "POST", "/gateways/hooks/events", {
        secret: SECRET,
        body: { id: "cb-1", thread: "cb", text: "ping" },
      });
      await eventually(() => received.length === 1, "one callback");
      const got = received[0]!;
      const ts = String(got.headers["x-agentsvc-timestamp"]);
      expect(got.headers["x-agentsvc-signature"]).toBe(`v1=${signPayload(SECRET, ts, got.body)}`);
      expect(JSON.parse(got.body)).toMatchObject({ gateway: "hooks", thread: "cb", kind: "reply" });
    } finally {
      await new Promise<void>((ok) => hook.close(() => ok()));
    }
  });
});
