import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

// Every route of the API, with the method it answers to.
const POST_ROUTES = [
  "/invoke",
  "/stream",
  "/batch",
  "/cancel",
  "/steer",
  "/clear",
  "/compact",
  "/resume",
  "/conversations/create",
  "/conversations/rename",
  "/conversations/delete",
  "/preferences/set",
  "/preferences/delete",
  "/auth/login",
  "/auth/logout",
];
const GET_ROUTES = [
  "/history",
  "/pending",
  "/tools",
  "/health",
  "/info",
  "/conversations",
  "/preferences",
  "/auth/me",
];

const FIELDS = [
  "input",
  "inputs",
  "threadId",
  "conversationId",
  "reason",
  "decision",
  "editedData",
  "keepRecent",
  "title",
  "key",
  "value",
  "username",
  "password",
  "userId",
];

/** Values of the wrong (or occasionally right) type for any field. */
const anyValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string({ maxLength: 10 }), fc.integer()), { maxLength: 25 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  fc.constantFrom("", " ", "\u0000", "approve", "edit", "-1", "__proto__", "x".repeat(300)),
);

const objectBody = fc
  .dictionary(fc.constantFrom(...FIELDS), anyValue, { maxKeys: 5 })
  .map((o) => JSON.stringify(o));

const malformed = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.constantFrom(
    "{",
    '{"input":',
    "[1,2",
    "nul",
    '"str"',
    "[]",
    "null",
    "123",
    '{"a":1}}',
    "\uFEFF{}",
    '{"input":"\\ud800"}',
  ),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);

const contentTypes = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  undefined,
);

const query = fc.oneof(
  fc.constant(""),
  fc
    .string({ maxLength: 30 })
    .map((s) => `?threadId=${encodeURIComponent(s)}&conversationId=${encodeURIComponent(s)}`),
  fc.constantFrom(
    "?threadId=",
    "?conversationId=",
    "?threadId=a&threadId=b",
    "?conversationId=%00",
    `?threadId=${"t".repeat(500)}`,
  ),
);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

async function expectClientError(res: Response, what: string): Promise<void> {
  const text = await res.text();
  expect(res.status, `${what} -> ${res.status} ${text.slice(0, 200)}`).toBeLessThan(500);
  if (res.headers.get("content-type")?.includes("text/event-stream")) return;
  const body = JSON.parse(text);
  expect(typeof body.success, what).toBe("boolean");
  if (res.status >= 400) {
    expect(body.success, what).toBe(false);
    expect(typeof body.error.code, what).toBe("string");
    expect(typeof body.error.message, what).toBe("string");
  }
}

describe("fuzzing every route", () => {
  it("answers malformed JSON, wrong types and odd content types on POST routes with 4xx JSON (or success), never 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...POST_ROUTES),
        fc.oneof(objectBody, malformed),
        contentTypes,
        async (route, body, type) => {
          const headers: Record<string, string> = {};
          if (type) headers["content-type"] = type;
          const res = await fetch(`${h.base}${route}`, {
            method: "POST",
            headers,
            body,
            signal: AbortSignal.timeout(10_000),
          });
          await expectClientError(res, `POST ${route} ${type} ${body.slice(0, 80)}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("answers odd query strings on GET routes with 4xx JSON (or success), never 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...GET_ROUTES), query, async (route, q) => {
        const res = await fetch(`${h.base}${route}${q}`, { signal: AbortSignal.timeout(10_000) });
        await expectClientError(res, `GET ${route}${q}`);
      }),
      { numRuns: 150 },
    );
  });

  it("refuses bodies over 1 MiB on every POST route with 413, with or without Content-Length", async () => {
    const huge = JSON.stringify({ input: "x".repeat(1024 * 1024 + 10) });
    for (const route of POST_ROUTES) {
      const declared = await fetch(`${h.base}${route}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: huge,
      });
      expect(declared.status, route).toBe(413);
      expect(((await declared.json()) as { error: { code: string } }).error.code, route).toBe("too_large");
      // A streamed body has no Content-Length: the limit is enforced while reading.
      const chunked = await fetch(`${h.base}${route}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new Blob([huge]).stream(),
        duplex: "half",
      } as RequestInit);
      expect(chunked.status, route).toBe(413);
      await chunked.text();
    }
  });

  it("answers empty bodies on every POST route with a JSON answer below 500", async () => {
    for (const route of POST_ROUTES) {
      for (const headers of [{}, { "content-type": "application/json" }]) {
        const res = await fetch(`${h.base}${route}`, { method: "POST", headers, body: "" });
        await expectClientError(res, `POST ${route} empty ${JSON.stringify(headers)}`);
      }
    }
  });

  it("keeps serving after the barrage", async () => {
    const res = await fetch(`${h.base}/health`);
    expect(await res.json()).toEqual({ success: true, status: "ok", store: "ok" });
    const set = await h.client().post("/preferences/set", { key: "after", value: 1 });
    expect(set.status).toBe(200);
  });
});
