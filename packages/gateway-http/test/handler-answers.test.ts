// What each route of the http gateway's handler answers a client, body included (`{ success: false,
// error: { code, message } }`): an unknown or unstarted gateway, a body or a declared length over the
// limit, a failed signature on the interaction routes (which name no gateway), a bad `after` or
// thread, an unknown route; the messages read's `next`; a decision's reason and edited data passed
// on, a bad decision body, the same v1 decision sent twice. Real session, real HTTP on 127.0.0.1.
// Found by `pnpm mutate gateway-http src/handler.ts` (#45): the route tests checked statuses only,
// so an error's code and message, `next` or `success` could change unseen.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createHttpGateway,
  createHttpGatewayHandler,
  requestSignatureHeaders,
  signPayload,
} from "../src/index.js";
import { body, listen, type Server, signed } from "./client.js";
import { eventually, type HttpRig, httpRig } from "./rig.js";

const SECRET = "answers-secret";
const OTHER = "answers-other";
let r: HttpRig;
/** The same started gateways behind a handler taking bodies of 64 bytes at most. */
let small: Server;
/** A handler whose only gateway was never started (no session). */
let cold: Server;

beforeAll(async () => {
  // "unsigned" last: a signer is looked for in this order (its no_secret must not hide hooks' reason).
  r = await httpRig(
    [
      { name: "hooks", secretEnvVar: "HOOKS_SECRET" },
      { name: "partner", secretEnvVar: "PARTNER_SECRET" },
      { name: "unsigned", secretEnvVar: "UNSET_SECRET" },
    ],
    { HOOKS_SECRET: SECRET, PARTNER_SECRET: OTHER },
  );
  small = await listen(createHttpGatewayHandler(r.gateways, { maxBodyBytes: 64 }));
  cold = await listen(
    createHttpGatewayHandler([createHttpGateway({ name: "cold", secretEnvVar: "COLD_SECRET" })]),
  );
}, 30_000);
afterAll(async () => {
  await small.close();
  await cold.close();
  await r.close();
});

/** A GET with a body (fetch sends none) to the 64-byte handler, answered as status and text. */
function rawGet(path: string, sent: string, headers: Record<string, string>) {
  const port = Number(new URL(small.base).port);
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "GET",
        path,
        headers: { ...headers, "content-length": String(sent.length) },
      },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(sent);
  });
}

/** A POST's JSON body (a GET has none). */
const bodyOf = (method: "GET" | "POST") => (method === "POST" ? { body: {} } : {});

/** The failure body a client reads. */
async function failure(res: Response) {
  return { status: res.status, ...(await body(res)) };
}

const problem = (status: number, code: string, message: string) => ({
  status,
  success: false,
  error: { code, message },
});

type Msg = { seq: number; kind: string; text: string; requestId?: string };
async function thread(name: string, after = 0) {
  const res = await signed(r.base, "GET", `/gateways/hooks/threads/${name}/messages?after=${after}`, {
    secret: SECRET,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { success: boolean; messages: Msg[]; next: number };
}

/** An open approval request on thread `name` (the demo model asks to run delete_file). */
async function pending(name: string): Promise<string> {
  await signed(r.base, "POST", "/gateways/hooks/events", {
    secret: SECRET,
    body: { id: `ev-${name}`, thread: name, text: "use delete_file plan.txt" },
  });
  await eventually(
    async () => (await thread(name)).messages.some((m) => m.kind === "interaction"),
    "an approval request",
  );
  return (await thread(name)).messages.find((m) => m.kind === "interaction")?.requestId ?? "";
}

describe("the gateway routes", () => {
  it("answer 404 gateway_not_found naming an unknown gateway, 503 not_started for one never started", async () => {
    for (const [method, path] of [
      ["POST", "/gateways/nope/events"],
      ["GET", "/gateways/nope/threads/t/messages"],
    ] as const)
      expect(
        await failure(await signed(r.base, method, path, { secret: SECRET, ...bodyOf(method) })),
        path,
      ).toEqual(problem(404, "gateway_not_found", 'no http gateway named "nope"'));
    for (const [method, path] of [
      ["POST", "/gateways/cold/events"],
      ["GET", "/gateways/cold/threads/t/messages"],
    ] as const)
      expect(
        await failure(await signed(cold.base, method, path, { secret: SECRET, ...bodyOf(method) })),
        path,
      ).toEqual(problem(503, "not_started", 'http gateway "cold" is not started'));
  });

  it("refuse a body over the limit with 413 body_too_large naming the limit, and close the connection", async () => {
    const res = await signed(small.base, "POST", "/gateways/hooks/events", {
      secret: SECRET,
      body: { id: "big", thread: "t", text: "x".repeat(100) },
    });
    expect(res.headers.get("connection")).toBe("close");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await failure(res)).toEqual(problem(413, "body_too_large", "body: larger than 64 bytes"));
  });

  it("refuse a GET declaring a body over the limit with 413, before its signature is looked at", async () => {
    const answer = await rawGet("/gateways/hooks/threads/t/messages", "x".repeat(100), {});
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toEqual({
      success: false,
      error: { code: "body_too_large", message: "body: larger than 64 bytes" },
    });
  });

  it("neither read nor sign the body of a GET within the limit: signed without it, the read is answered", async () => {
    const path = "/gateways/hooks/threads/t/messages";
    const headers = requestSignatureHeaders(SECRET, { method: "GET", target: path });
    const answer = await rawGet(path, "x".repeat(64), headers);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ success: true, messages: [], next: 0 });
  });

  it("answer a messages read with success, the messages after `after`, and next: the last one's seq, or `after` when none", async () => {
    for (const id of ["n1", "n2", "n3"]) {
      await signed(r.base, "POST", "/gateways/hooks/events", {
        secret: SECRET,
        body: { id, thread: "nx", text: id },
      });
      await r.session.idle();
    }
    const all = await thread("nx");
    expect(all.success).toBe(true);
    expect(all.messages).toHaveLength(3);
    expect(all.next).toBe(all.messages[2]?.seq);
    const none = await thread("nx", 1_000_000);
    expect(none).toEqual({ success: true, messages: [], next: 1_000_000 });
    expect((await thread("nx", all.messages[0]?.seq)).messages.map((m) => m.seq)).toEqual(
      all.messages.slice(1).map((m) => m.seq),
    );
  });

  it("refuse an `after` that is not a whole number, and a thread id over 1024 characters, with 400 bad_request saying why", async () => {
    for (const after of ["1x", "-1", "1.5", "x1"])
      expect(
        await failure(
          await signed(r.base, "GET", `/gateways/hooks/threads/t/messages?after=${after}`, {
            secret: SECRET,
          }),
        ),
        after,
      ).toEqual(problem(400, "bad_request", `after: expected a non-negative integer (got "${after}")`));
    const long = "t".repeat(1025);
    expect(
      await failure(
        await signed(r.base, "GET", `/gateways/hooks/threads/${long}/messages`, { secret: SECRET }),
      ),
    ).toEqual(
      problem(
        400,
        "bad_request",
        `thread: expected a non-empty string of at most 1024 characters (got "${long}")`,
      ),
    );
  });

  it("refuse a messages read signed with another gateway's secret: 401 unauthorized", async () => {
    expect(
      await failure(await signed(r.base, "GET", "/gateways/hooks/threads/t/messages", { secret: OTHER })),
    ).toEqual(problem(401, "unauthorized", "X-Agentsvc-Signature: does not match the request"));
  });
});

describe("the interaction routes", () => {
  it("refuse a request no started gateway's secret signed with the reason of a gateway that has a secret", async () => {
    for (const [method, path] of [
      ["GET", "/interactions/req_x"],
      ["POST", "/interactions/req_x/decisions"],
    ] as const) {
      expect(
        await failure(await signed(r.base, method, path, { secret: "wrong", ...bodyOf(method) })),
        path,
      ).toEqual(problem(401, "unauthorized", "X-Agentsvc-Signature: does not match the request"));
      expect(
        await failure(
          await signed(r.base, method, path, { secret: SECRET, ...bodyOf(method), timestamp: 1 }),
        ),
        path,
      ).toEqual(
        problem(
          401,
          "unauthorized",
          "X-Agentsvc-Timestamp: more than 300 seconds away from the server clock",
        ),
      );
      // No gateway started: no secret to check with.
      expect(
        await failure(await signed(cold.base, method, path, { secret: SECRET, ...bodyOf(method) })),
        path,
      ).toEqual(
        problem(
          401,
          "unauthorized",
          "no signing secret is configured for this gateway; every request is rejected",
        ),
      );
    }
  });

  it("answer an unknown or another gateway's request 404 not_found naming it, and a known one with success", async () => {
    const id = await pending("ia");
    expect(await failure(await signed(r.base, "GET", "/interactions/req_nope", { secret: SECRET }))).toEqual(
      problem(404, "not_found", 'no interaction request "req_nope"'),
    );
    expect(await failure(await signed(r.base, "GET", `/interactions/${id}`, { secret: OTHER }))).toEqual(
      problem(404, "not_found", `no interaction request "${id}"`),
    );
    for (const secret of [OTHER, SECRET])
      expect(
        await failure(
          await signed(r.base, "POST", "/interactions/req_nope/decisions", {
            secret,
            body: { decision: "approve" },
          }),
        ),
      ).toEqual(problem(404, "not_found", 'no interaction request "req_nope"'));
    const res = await signed(r.base, "GET", `/interactions/${id}`, { secret: SECRET });
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ success: true, interaction: { requestId: id } });
  });

  it("refuse a decision body that is not JSON, not an object, or holds a bad decision or reason, with 400 saying why", async () => {
    const id = await pending("ib");
    const path = `/interactions/${id}/decisions`;
    expect(
      await failure(
        await signed(r.base, "POST", path, { secret: SECRET, raw: new TextEncoder().encode("{no") }),
      ),
    ).toMatchObject({ status: 400, success: false, error: { code: "bad_json" } });
    for (const [sent, message] of [
      [[], "body: expected a JSON object"],
      ["approve", "body: expected a JSON object"],
      [{}, "body.decision: expected one of approve, reject, edit (got nothing)"],
      [{ decision: "maybe" }, 'body.decision: expected one of approve, reject, edit (got "maybe")'],
      [{ decision: "approve", reason: 5 }, "body.reason: expected a string"],
    ] as const)
      expect(
        await failure(await signed(r.base, "POST", path, { secret: SECRET, body: sent })),
        JSON.stringify(sent),
      ).toEqual(problem(400, "bad_request", message));
    expect(r.executed).toEqual([]);
  });

  it("pass a decision's reason on to the stored decision, and none when the body has none", async () => {
    const withReason = await pending("ir1");
    const without = await pending("ir2");
    for (const [id, sent] of [
      [withReason, { decision: "reject", reason: "not that file" }],
      [without, { decision: "reject" }],
    ] as const) {
      const res = await signed(r.base, "POST", `/interactions/${id}/decisions`, {
        secret: SECRET,
        body: sent,
      });
      expect(await body(res)).toEqual({
        success: true,
        requestId: id,
        decision: "reject",
        decidedBy: "http:hooks",
      });
    }
    await r.session.idle();
    expect((await r.db.interactions.get(withReason))?.decision).toMatchObject({ reason: "not that file" });
    expect((await r.db.interactions.get(without))?.decision).not.toHaveProperty("reason");
  });

  it("pass an edit's data on: the tool runs with the edited arguments", async () => {
    const id = await pending("ied");
    const res = await signed(r.base, "POST", `/interactions/${id}/decisions`, {
      secret: SECRET,
      body: { decision: "edit", editedData: { note: "other.txt" } },
    });
    expect(await body(res)).toEqual({
      success: true,
      requestId: id,
      decision: "edit",
      decidedBy: "http:hooks",
    });
    await r.session.idle();
    expect(r.executed.at(-1)).toBe("other.txt");
    expect((await r.db.interactions.get(id))?.decision).toMatchObject({ editedData: { note: "other.txt" } });
  });

  it("answer a decision the session refuses (an edit without its data) 400 with the session's code and reason", async () => {
    const id = await pending("ied2");
    const res = await signed(r.base, "POST", `/interactions/${id}/decisions`, {
      secret: SECRET,
      body: { decision: "edit" },
    });
    expect(await failure(res)).toEqual(
      problem(400, "bad_decision", "editedData: required when decision is edit"),
    );
  });

  it("answer the same v1 decision sent again to its own request 409 already_decided, not a replay refusal", async () => {
    const id = await pending("iv1");
    const sent = JSON.stringify({ decision: "reject" });
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      "content-type": "application/json",
      "X-Agentsvc-Timestamp": String(ts),
      "X-Agentsvc-Signature": `v1=${signPayload(SECRET, ts, sent)}`,
    };
    const first = await fetch(`${r.base}/interactions/${id}/decisions`, {
      method: "POST",
      headers,
      body: sent,
    });
    expect(first.status).toBe(200);
    const again = await fetch(`${r.base}/interactions/${id}/decisions`, {
      method: "POST",
      headers,
      body: sent,
    });
    expect(await failure(again)).toMatchObject({
      status: 409,
      success: false,
      error: { code: "already_decided" },
    });
    // Moved to another request: refused, saying so, and logged with the request it was first used for.
    const other = await pending("iv2");
    const moved = await fetch(`${r.base}/interactions/${other}/decisions`, {
      method: "POST",
      headers,
      body: sent,
    });
    expect(await failure(moved)).toEqual(
      problem(401, "unauthorized", "X-Agentsvc-Signature: already used for another request"),
    );
    expect(r.logs().find((l) => String(l.msg).startsWith("decision signature replayed"))).toMatchObject({
      level: 40,
      msg: "decision signature replayed onto another request; refused",
      requestId: other,
      firstUsedFor: id,
    });
  });
});

it("answers a request whose handling failed 500 internal_error, logged, without the cause", async () => {
  const context = r.gateways[0]?.context;
  if (!context) throw new Error("hooks is started");
  const interaction = context.interaction;
  // The store failing under the route (a fault injected into the started gateway's context).
  context.interaction = async () => {
    throw new Error("disk gone");
  };
  try {
    expect(await failure(await signed(r.base, "GET", "/interactions/req_x", { secret: SECRET }))).toEqual(
      problem(500, "internal_error", "internal error"),
    );
  } finally {
    context.interaction = interaction;
  }
  expect(r.logs().find((l) => l.msg === "http gateway handler failed")).toMatchObject({
    level: 50,
    err: { message: "disk gone" },
  });
});

it("answers an unknown route 404 not_found naming its method and path", async () => {
  const res = await fetch(`${r.base}/nothing/here?x=1`);
  expect(await failure(res)).toEqual(problem(404, "not_found", "no route GET /nothing/here"));
});
