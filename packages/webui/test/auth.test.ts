import { afterEach, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

const USERS = [
  { username: "alice", displayName: "Alice A.", passwordEnvVar: "ALICE_PW" },
  { username: "bob", displayName: "Bob B.", passwordEnvVar: "BOB_PW" },
];
const ENV = { ALICE_PW: "alice-secret", BOB_PW: "bob-secret" };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("sign-in gate", () => {
  it("refuses every user-scoped route with 401 sign_in_required until signed in, but serves health and auth/me", async () => {
    h = await startHarness({ users: USERS, env: ENV });
    const c = h.client();
    for (const path of [
      "/conversations",
      "/preferences",
      "/history",
      "/info",
      "/tools",
      "/pending?threadId=x",
    ]) {
      const r = await c.get(path);
      expect(r.status, path).toBe(401);
      expect(r.body.error.code, path).toBe("sign_in_required");
    }
    for (const path of ["/invoke", "/clear", "/conversations/create", "/preferences/set", "/cancel"]) {
      const r = await c.post(path, {});
      expect(r.status, path).toBe(401);
    }
    expect((await c.get("/health")).body).toEqual({ success: true, status: "ok", store: "ok" });
    const me = await c.get("/auth/me");
    expect(me.body).toEqual({ success: true, signInRequired: true, user: null });
  });

  it("signs in with the right password and sets an HttpOnly SameSite=Lax session cookie scoped to the API path", async () => {
    h = await startHarness({ users: USERS, env: ENV });
    const c = h.client();
    const r = await c.login("alice", "alice-secret");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, user: { username: "alice", displayName: "Alice A." } });
    const setCookie = r.headers.getSetCookie().join("\n");
    expect(setCookie).toMatch(/agentsvc_session=[A-Za-z0-9_-]{43}/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Path=\/chat\/api/);
    expect(setCookie).not.toMatch(/Secure/);
    const me = await c.get("/auth/me");
    expect(me.body.user).toEqual({ username: "alice", displayName: "Alice A." });
    expect((await c.get("/conversations")).status).toBe(200);
  });

  it("marks the cookie Secure when the request came over https (proxy header)", async () => {
    h = await startHarness({ users: USERS, env: ENV });
    const r = await h
      .client()
      .post("/auth/login", { username: "alice", password: "alice-secret" }, { "x-forwarded-proto": "https" });
    expect(r.headers.getSetCookie().join("\n")).toMatch(/Secure/);
  });

  it("refuses a wrong password and an unknown user alike with 401 invalid_credentials and no cookie", async () => {
    h = await startHarness({ users: USERS, env: ENV });
    const c = h.client();
    const wrong = await c.login("alice", "nope");
    const unknown = await c.login("mallory", "nope");
    for (const r of [wrong, unknown]) {
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("invalid_credentials");
      expect(r.headers.getSetCookie()).toEqual([]);
    }
  });

  it("locks a username after five failures: even the right password is refused with 429 until the window passes", async () => {
    let now = 1_700_000_000_000;
    h = await startHarness({ users: USERS, env: ENV, now: () => now });
    const c = h.client();
    for (let i = 0; i < 5; i++) expect((await c.login("alice", `guess-${i}`)).status).toBe(401);
    const locked = await c.login("alice", "alice-secret");
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe("too_many_attempts");
    expect(locked.headers.getSetCookie()).toEqual([]);
    now += 16 * 60 * 1000;
    expect((await c.login("alice", "alice-secret")).status).toBe(200);
  });

  it("locks an address that tries many usernames", async () => {
    h = await startHarness({ users: USERS, env: ENV });
    const c = h.client();
    for (let i = 0; i < 5; i++) await c.login(`user${i}`, "x");
    expect((await c.login("bob", "bob-secret")).status).toBe(429);
  });

  it("slides the 60-minute session timeout on every use and expires it after 60 idle minutes", async () => {
    let now = 1_700_000_000_000;
    h = await startHarness({ users: USERS, env: ENV, now: () => now });
    const c = h.client();
    await c.login("alice", "alice-secret");
    now += 59 * 60 * 1000;
    expect((await c.get("/conversations")).status).toBe(200);
    now += 59 * 60 * 1000; // 118 minutes after sign-in, 59 after last use
    expect((await c.get("/conversations")).status).toBe(200);
    now += 61 * 60 * 1000;
    const expired = await c.get("/conversations");
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe("sign_in_required");
  });

  it("rotates the session id at sign-in: the previous id stops working", async () => {
    h = await startHarness({ users: USERS, env: ENV });
    const c = h.client();
    await c.login("alice", "alice-secret");
    const first = c.cookie;
    await c.login("alice", "alice-secret");
    const second = c.cookie;
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    const stale = h.client();
    stale.cookie = first;
    expect((await stale.get("/conversations")).status).toBe(401);
    expect((await c.get("/conversations")).status).toBe(200);
  });

  it("logout deletes the server-side session: replaying the old cookie is refused", async () => {
    h = await startHarness({ users: USERS, env: ENV });
    const c = h.client();
    await c.login("alice", "alice-secret");
    const old = c.cookie;
    const out = await c.post("/auth/logout");
    expect(out.body).toEqual({ success: true });
    expect(out.headers.getSetCookie().join("\n")).toMatch(/agentsvc_session=;/);
    const replay = h.client();
    replay.cookie = old;
    expect((await replay.get("/conversations")).status).toBe(401);
  });

  it("refuses sign-in and existing sessions of an account removed from config (deactivated)", async () => {
    h = await startHarness({ users: USERS, env: ENV });
    const bob = h.client();
    await bob.login("bob", "bob-secret");
    expect((await bob.get("/conversations")).status).toBe(200);
    await h.db.seedAccounts(
      [USERS[0] as (typeof USERS)[0]],
      ENV,
      { warn() {}, info() {} },
      { iterations: 1000 },
    );
    expect((await bob.get("/conversations")).status).toBe(401);
    const again = await h.client().login("bob", "bob-secret");
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe("invalid_credentials");
  });
});

describe("cross-site refusal (CSRF)", () => {
  it("refuses a state-changing request whose Origin is another site with 403 cross_site, and accepts the same origin", async () => {
    h = await startHarness({ users: USERS, env: ENV });
    const c = h.client();
    await c.login("alice", "alice-secret");
    const evil = await c.post("/conversations/create", { title: "x" }, { origin: "https://evil.example" });
    expect(evil.status).toBe(403);
    expect(evil.body.error.code).toBe("cross_site");
    const opaque = await c.post("/preferences/set", { key: "k", value: 1 }, { origin: "null" });
    expect(opaque.status).toBe(403);
    const host = new URL(h.base).host;
    const same = await c.post("/conversations/create", { title: "x" }, { origin: `http://${host}` });
    expect(same.status).toBe(200);
    expect((await c.get("/conversations")).body.conversations).toHaveLength(1);
  });

  it("refuses a cross-site login too (no login CSRF)", async () => {
    h = await startHarness({ users: USERS, env: ENV });
    const r = await h
      .client()
      .post(
        "/auth/login",
        { username: "alice", password: "alice-secret" },
        { origin: "https://evil.example" },
      );
    expect(r.status).toBe(403);
    expect(r.headers.getSetCookie()).toEqual([]);
  });

  it("accepts only JSON bodies on state-changing routes: a form post is 415", async () => {
    h = await startHarness({ users: USERS, env: ENV });
    const c = h.client();
    await c.login("alice", "alice-secret");
    const form = await c.send("POST", "/conversations/create", {
      raw: "title=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe("unsupported_media_type");
    const plain = await c.send("POST", "/clear", { raw: "{}", headers: { "content-type": "text/plain" } });
    expect(plain.status).toBe(415);
  });
});

describe("API key gate", () => {
  it("needs X-API-Key on every route, health and auth included; a wrong or missing key is 401 api_key_required", async () => {
    h = await startHarness({ apiKeyEnvVar: "WEB_KEY", apiKey: "k-123456" });
    const c = h.client();
    for (const path of ["/health", "/auth/me", "/conversations", "/info"]) {
      const r = await c.get(path);
      expect(r.status, path).toBe(401);
      expect(r.body.error.code, path).toBe("api_key_required");
      expect((await c.get(path, { "x-api-key": "k-12345" })).status, path).toBe(401);
      expect((await c.get(path, { "x-api-key": "k-1234567" })).status, path).toBe(401);
      expect((await c.get(path, { "x-api-key": "k-123456" })).status, path).toBe(200);
    }
    expect((await c.post("/auth/login", { username: "a", password: "b" })).body.error.code).toBe(
      "api_key_required",
    );
  });

  it("checks the key before sign-in, so the page can tell the two 401s apart", async () => {
    h = await startHarness({ apiKeyEnvVar: "WEB_KEY", apiKey: "k", users: USERS, env: ENV });
    const c = h.client();
    expect((await c.get("/conversations")).body.error.code).toBe("api_key_required");
    expect((await c.get("/conversations", { "x-api-key": "k" })).body.error.code).toBe("sign_in_required");
  });

  it("refuses to start when apiKeyEnvVar names an unset variable, naming the variable", async () => {
    delete process.env.WEBUI_TEST_UNSET_KEY;
    await expect(startHarness({ apiKeyEnvVar: "WEBUI_TEST_UNSET_KEY" })).rejects.toThrow(
      /apiKeyEnvVar: expected environment variable WEBUI_TEST_UNSET_KEY/,
    );
  });
});

describe("identity", () => {
  it("without users every visitor shares one workspace as userId shared", async () => {
    h = await startHarness();
    const a = h.client();
    const b = h.client();
    await a.post("/preferences/set", { key: "theme", value: "dark" });
    expect((await b.get("/preferences")).body.preferences).toEqual({ theme: "dark" });
    expect((await a.get("/auth/me")).body).toEqual({ success: true, signInRequired: false, user: null });
    expect(await h.db.preferences.getAll("shared")).toEqual({ theme: "dark" });
  });

  it("ignores a userId in the body: writes land on the signed-in account only", async () => {
    h = await startHarness({ users: USERS, env: ENV });
    const alice = h.client();
    await alice.login("alice", "alice-secret");
    await alice.post("/preferences/set", { key: "theme", value: "dark", userId: "bob" });
    await alice.post("/conversations/create", { title: "mine", userId: "bob" });
    expect(await h.db.preferences.getAll("bob")).toEqual({});
    expect(await h.db.preferences.getAll("alice")).toEqual({ theme: "dark" });
    expect(await h.db.conversations.list("bob")).toEqual([]);
  });

  it("lets an operator replace the resolver with another authenticated principal", async () => {
    h = await startHarness({
      chatUi: {
        resolveIdentity: async (c) => {
          const who = c.req.header("x-test-principal");
          return who ? { userId: `ext:${who}`, displayName: who } : null;
        },
      },
    });
    const c = h.client();
    expect((await c.get("/conversations")).status).toBe(401);
    await c.post("/preferences/set", { key: "k", value: 1 }, { "x-test-principal": "carol" });
    expect(await h.db.preferences.getAll("ext:carol")).toEqual({ k: 1 });
    expect((await c.get("/auth/me", { "x-test-principal": "carol" })).body.user).toEqual({
      username: "ext:carol",
      displayName: "carol",
    });
  });
});
