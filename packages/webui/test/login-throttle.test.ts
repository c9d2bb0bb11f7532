import type { Context } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

const USERS = [{ username: "alice", displayName: "Alice", passwordEnvVar: "ALICE_PW" }];
const ENV = { ALICE_PW: "alice-secret" };
// Tests choose the client address per request, so floods can come from many addresses.
const byHeader = (c: Context) => c.req.header("x-test-addr") ?? "127.0.0.1";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(now?: () => number): Promise<Harness> {
  return startHarness({
    users: USERS,
    env: ENV,
    chatUi: { clientAddress: byHeader },
    ...(now ? { now } : {}),
  });
}

function verifications(harness: Harness): string[] {
  const seen: string[] = [];
  harness.db.accounts.onVerify((username) => seen.push(username));
  return seen;
}

describe("sign-in throttle under concurrency", () => {
  it("tries at most five of 50 parallel guesses; the right password inside the burst does not sign in", async () => {
    h = await start();
    const hashed = verifications(h);
    const c = h.client();
    const guesses = Array.from({ length: 50 }, (_, i) => (i === 30 ? "alice-secret" : `guess-${i}`));
    const replies = await Promise.all(guesses.map((password) => c.login("alice", password)));
    const statuses = replies.map((r) => r.status);
    expect(hashed.length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 401).length).toBe(hashed.length);
    expect(statuses.filter((s) => s === 429).length).toBe(50 - hashed.length);
    expect(statuses).not.toContain(200);
    const locked = replies.find((r) => r.status === 429);
    expect(Number(locked?.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("an unknown-user flood from many addresses costs no hashing: a real sign-in is verified first", async () => {
    h = await start();
    const hashed = verifications(h);
    const c = h.client();
    const flood = Array.from({ length: 100 }, (_, i) =>
      c.post("/auth/login", { username: `nobody${i}`, password: "x" }, { "x-test-addr": `10.0.${i}.1` }),
    );
    const real = c.post(
      "/auth/login",
      { username: "alice", password: "alice-secret" },
      { "x-test-addr": "192.168.1.9" },
    );
    const [floodReplies, realReply] = await Promise.all([Promise.all(flood), real]);
    expect(realReply.status).toBe(200);
    for (const r of floodReplies) {
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("invalid_credentials");
    }
    // Unknown names are answered without PBKDF2 (one calibration check per process at most), so
    // nothing queues in front of alice's check.
    expect(hashed.filter((name) => name !== "alice").length).toBeLessThanOrEqual(1);
    expect(hashed.indexOf("alice")).toBeGreaterThanOrEqual(0);
    expect(hashed.indexOf("alice")).toBeLessThanOrEqual(1);
  });
});

describe("lockout policy", () => {
  it("strangers who lock an account cannot keep its owner out from an address she signed in from", async () => {
    const now = 1_700_000_000_000;
    h = await start(() => now);
    const owner = h.client();
    const home = { "x-test-addr": "192.168.1.9" };
    expect(
      (await owner.post("/auth/login", { username: "alice", password: "alice-secret" }, home)).status,
    ).toBe(200);
    // Five strangers, one guess each (no single address reaches its own limit).
    for (let i = 0; i < 5; i++) {
      const r = await h
        .client()
        .post("/auth/login", { username: "alice", password: `guess-${i}` }, { "x-test-addr": `10.9.9.${i}` });
      expect(r.status).toBe(401);
    }
    const fromNewPlace = await h
      .client()
      .post("/auth/login", { username: "alice", password: "alice-secret" }, { "x-test-addr": "172.16.0.1" });
    expect(fromNewPlace.status).toBe(429);
    const fromHome = await h
      .client()
      .post("/auth/login", { username: "alice", password: "alice-secret" }, home);
    expect(fromHome.status).toBe(200);
  });

  it("each further lock of a key lasts twice as long as the one before", async () => {
    let now = 1_700_000_000_000;
    h = await start(() => now);
    const c = h.client();
    const at = { "x-test-addr": "10.1.1.1" };
    const fail = () => c.post("/auth/login", { username: "mallory", password: "x" }, at);
    for (let i = 0; i < 5; i++) expect((await fail()).status).toBe(401);
    const first = await fail();
    expect(first.status).toBe(429);
    expect(Number(first.headers.get("retry-after"))).toBe(15 * 60);
    now += 15 * 60 * 1000;
    for (let i = 0; i < 5; i++) expect((await fail()).status).toBe(401);
    const second = await fail();
    expect(second.status).toBe(429);
    expect(Number(second.headers.get("retry-after"))).toBe(30 * 60);
  });
});
