import { existsSync, readFileSync } from "node:fs";
import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { ChatDbError, hashPassword, verifyPassword } from "../src/index.js";
import type { ChatDb } from "../src/index.js";
import { clock, eachDriver, tempRoot } from "./helpers.js";

eachDriver((driver) => {
  const FAST = { iterations: 1000 };

  /** A real pino logger named webui-auth whose JSON lines are captured. */
  function captureLogger() {
    const lines: { level: number; name: string; msg: string; [k: string]: unknown }[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
        done();
      },
    });
    return { logger: pino({ name: "webui-auth" }, stream), lines };
  }

  function storedHash(db: ChatDb, username: string): Promise<string | undefined> {
    return db.accounts.storedHash(username);
  }

  describe("account seeder (spec §3 account rows)", () => {
    it("absent -> added to config: the account is created, active, with a pbkdf2 hash of the env password", async () => {
      const db = await driver.open();
      const { logger } = captureLogger();
      const report = await db.seedAccounts(
        [{ username: "alice", displayName: "Alice A.", passwordEnvVar: "ALICE_PW" }],
        { ALICE_PW: "wonderland" },
        logger,
        FAST,
      );
      expect(report.created).toEqual(["alice"]);
      expect(await db.accounts.get("alice")).toMatchObject({
        username: "alice",
        displayName: "Alice A.",
        active: true,
      });
      const hash = (await storedHash(db, "alice"))!;
      expect(hash).toMatch(/^pbkdf2\$1000\$/);
      expect(await verifyPassword("wonderland", hash)).toBe(true);
      expect(await db.accounts.verifyLogin("alice", "wonderland")).toMatchObject({ username: "alice" });
      expect(await db.accounts.verifyLogin("alice", "nope")).toBeUndefined();
    });

    it("instances booting together on one database each seed the same config: one creates, none fails", async () => {
      const appRoot = tempRoot();
      const [a, b, c] = [
        await driver.open({ appRoot }),
        await driver.open({ appRoot }),
        await driver.open({ appRoot }),
      ];
      const users = [{ username: "ann", passwordEnvVar: "ANN_PW" }];
      const reports = await Promise.all(
        [a, b, c].map((db) => db.seedAccounts(users, { ANN_PW: "pw" }, captureLogger().logger, FAST)),
      );
      expect(reports.flatMap((r) => r.created)).toEqual(["ann"]);
      for (const db of [a, b, c])
        expect(await db.accounts.verifyLogin("ann", "pw")).toMatchObject({ username: "ann" });
    });

    it("an account given by passwordHash is stored as configured and displayName defaults to the username", async () => {
      const db = await driver.open();
      const hash = await hashPassword("pw", FAST);
      await db.seedAccounts([{ username: "bob", passwordHash: hash }], {}, captureLogger().logger);
      expect(await storedHash(db, "bob")).toBe(hash);
      expect((await db.accounts.get("bob"))?.displayName).toBe("bob");
      expect(await db.accounts.verifyLogin("bob", "pw")).toBeDefined();
    });

    it("active, same password at the next boot: the stored hash is kept (not re-hashed)", async () => {
      const db = await driver.open();
      const users = [{ username: "alice", passwordEnvVar: "PW" }];
      await db.seedAccounts(users, { PW: "one" }, captureLogger().logger, FAST);
      const first = await storedHash(db, "alice");
      const report = await db.seedAccounts(users, { PW: "one" }, captureLogger().logger, FAST);
      expect(report.unchanged).toEqual(["alice"]);
      expect(await storedHash(db, "alice")).toBe(first);
    });

    it("active, password changed in config: re-hashed, the old password stops working, sessions end", async () => {
      const db = await driver.open();
      const users = [{ username: "alice", passwordEnvVar: "PW" }];
      await db.seedAccounts(users, { PW: "one" }, captureLogger().logger, FAST);
      const session = await db.sessions.create("alice");
      const before = await storedHash(db, "alice");
      const report = await db.seedAccounts(users, { PW: "two" }, captureLogger().logger, FAST);
      expect(report.passwordChanged).toEqual(["alice"]);
      expect(await storedHash(db, "alice")).not.toBe(before);
      expect(await db.accounts.verifyLogin("alice", "two")).toBeDefined();
      expect(await db.accounts.verifyLogin("alice", "one")).toBeUndefined();
      expect(await db.sessions.get(session.id)).toBeUndefined();
    });

    it("a different passwordHash in config replaces the stored one", async () => {
      const db = await driver.open();
      const h1 = await hashPassword("one", FAST);
      const h2 = await hashPassword("two", FAST);
      await db.seedAccounts([{ username: "bob", passwordHash: h1 }], {}, captureLogger().logger);
      const report = await db.seedAccounts(
        [{ username: "bob", passwordHash: h2 }],
        {},
        captureLogger().logger,
      );
      expect(report.passwordChanged).toEqual(["bob"]);
      expect(await storedHash(db, "bob")).toBe(h2);
    });

    it("active -> removed from config: deactivated, row and conversations kept, sign-in refused", async () => {
      const db = await driver.open();
      const env = { A: "a-pw", B: "b-pw" };
      await db.seedAccounts(
        [
          { username: "alice", passwordEnvVar: "A" },
          { username: "bob", passwordEnvVar: "B" },
        ],
        env,
        captureLogger().logger,
        FAST,
      );
      await db.conversations.recordTurn({ userId: "bob", conversationId: "bob-1", userMessage: "keep me" });
      const session = await db.sessions.create("bob");
      const report = await db.seedAccounts(
        [{ username: "alice", passwordEnvVar: "A" }],
        env,
        captureLogger().logger,
        FAST,
      );
      expect(report.deactivated).toEqual(["bob"]);
      expect(await db.accounts.get("bob")).toMatchObject({ active: false });
      expect((await db.accounts.get("bob"))?.deactivatedAt).toBeTypeOf("number");
      expect(await db.accounts.verifyLogin("bob", "b-pw")).toBeUndefined();
      expect(await db.sessions.get(session.id)).toBeUndefined();
      expect((await db.conversations.list("bob")).map((c) => c.title)).toEqual(["keep me"]);
    });

    it("deactivated -> restored in config: active again with its data", async () => {
      const db = await driver.open();
      const env = { B: "b-pw" };
      const bob = [{ username: "bob", passwordEnvVar: "B" }];
      await db.seedAccounts(bob, env, captureLogger().logger, FAST);
      await db.preferences.set("bob", "theme", "dark");
      await db.seedAccounts([], env, captureLogger().logger, FAST);
      expect((await db.accounts.get("bob"))?.active).toBe(false);
      const report = await db.seedAccounts(bob, env, captureLogger().logger, FAST);
      expect(report.reactivated).toEqual(["bob"]);
      expect(await db.accounts.get("bob")).toMatchObject({ active: true, deactivatedAt: null });
      expect(await db.accounts.verifyLogin("bob", "b-pw")).toBeDefined();
      expect(await db.preferences.getAll("bob")).toEqual({ theme: "dark" });
    });

    it("absent, passwordEnvVar unset: skipped with a warning on the webui-auth logger", async () => {
      const db = await driver.open();
      const { logger, lines } = captureLogger();
      const report = await db.seedAccounts(
        [
          { username: "carol", passwordEnvVar: "CAROL_PASSWORD" },
          { username: "dave", passwordEnvVar: "DAVE_PASSWORD" },
        ],
        { DAVE_PASSWORD: "ok" },
        logger,
        FAST,
      );
      expect(report.skipped).toEqual(["carol"]);
      expect(report.created).toEqual(["dave"]);
      expect(await db.accounts.get("carol")).toBeUndefined();
      const warning = lines.find((l) => l.level === 40);
      expect(warning).toMatchObject({
        name: "webui-auth",
        username: "carol",
        passwordEnvVar: "CAROL_PASSWORD",
      });
      expect(warning?.msg).toMatch(/CAROL_PASSWORD is not set/);
    });

    it("an existing account whose passwordEnvVar becomes unset is deactivated (never left on a stale password)", async () => {
      const db = await driver.open();
      const users = [{ username: "carol", passwordEnvVar: "C" }];
      await db.seedAccounts(users, { C: "pw" }, captureLogger().logger, FAST);
      const { logger, lines } = captureLogger();
      const report = await db.seedAccounts(users, { C: "" }, logger, FAST);
      expect(report.skipped).toEqual(["carol"]);
      expect(report.deactivated).toEqual(["carol"]);
      expect(lines.some((l) => l.level === 40 && /is empty/.test(l.msg))).toBe(true);
      expect(await db.accounts.verifyLogin("carol", "pw")).toBeUndefined();
    });

    it("a malformed users list fails before anything is written, naming the entry and key", async () => {
      const db = await driver.open();
      const log = captureLogger().logger;
      await expect(db.seedAccounts([{ username: "x", passwordHash: "plaintext" }], {}, log)).rejects.toThrow(
        /users\[0\] \("x"\)\.passwordHash: expected "pbkdf2\$<iterations>\$<salt>\$<digest>"/,
      );
      await expect(
        db.seedAccounts(
          [
            { username: "ok", passwordEnvVar: "P" },
            { username: "y", passwordEnvVar: "P", passwordHash: "pbkdf2$1$a$b" },
          ],
          { P: "p" },
          log,
        ),
      ).rejects.toBeInstanceOf(ChatDbError);
      await expect(
        db.seedAccounts(
          [
            { username: "dup", passwordEnvVar: "P" },
            { username: "dup", passwordEnvVar: "P" },
          ],
          { P: "p" },
          log,
        ),
      ).rejects.toThrow(/users\[1\] \("dup"\)\.username: expected a unique username/);
      expect(await db.accounts.list()).toEqual([]);
    });

    it("verifyLogin refuses unknown users", async () => {
      const db = await driver.open();
      expect(await db.accounts.verifyLogin("ghost", "pw")).toBeUndefined();
    });
  });

  describe("sessions", () => {
    it("create returns a random 32-byte base64url id that get() resolves to the user", async () => {
      const db = await driver.open();
      const a = await db.sessions.create("alice");
      const b = await db.sessions.create("alice");
      expect(a.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(a.id, "base64url")).toHaveLength(32);
      expect(a.id).not.toBe(b.id);
      expect((await db.sessions.get(a.id))?.userId).toBe("alice");
      expect(await db.sessions.get("not-a-session")).toBeUndefined();
      expect(await db.sessions.get(`${a.id.slice(0, -1)}${a.id.endsWith("A") ? "B" : "A"}`)).toBeUndefined();
    });

    it("expires after 60 idle minutes, and each use slides the window", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      const s = await db.sessions.create("alice");
      t.advance(59 * 60_000);
      expect((await db.sessions.get(s.id))?.expiresAt).toBe(t.now() + 60 * 60_000);
      t.advance(59 * 60_000); // 118 minutes after creation, 59 after last use
      expect((await db.sessions.get(s.id))?.userId).toBe("alice");
      t.advance(60 * 60_000);
      expect(await db.sessions.get(s.id)).toBeUndefined();
      t.set(0);
      expect(await db.sessions.get(s.id)).toBeUndefined(); // deleted on sight, not merely hidden
    });

    // SQLite-only: reads the database file itself.
    it.runIf(driver.name === "sqlite")("the session id is not stored in clear", async () => {
      const db = await driver.open();
      const s = await db.sessions.create("alice");
      expect((await db.sessions.get(s.id))?.userId).toBe("alice");
      for (const file of [db.file, `${db.file}-wal`]) {
        if (existsSync(file)) expect(readFileSync(file).includes(Buffer.from(s.id))).toBe(false);
      }
    });

    it("a use within a minute of the last touch does not rewrite the row; later uses do", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      const s = await db.sessions.create("alice");
      t.advance(30_000);
      expect((await db.sessions.get(s.id))?.lastSeenAt).toBe(s.lastSeenAt);
      t.advance(30_000);
      expect((await db.sessions.get(s.id))?.lastSeenAt).toBe(t.now());
    });

    it("rotate deletes the old session and issues a new one", async () => {
      const db = await driver.open();
      const old = await db.sessions.create("anonymous");
      const fresh = await db.sessions.rotate(old.id, "alice");
      expect(await db.sessions.get(old.id)).toBeUndefined();
      expect((await db.sessions.get(fresh.id))?.userId).toBe("alice");
      expect((await db.sessions.rotate(undefined, "bob")).userId).toBe("bob");
    });

    it("delete ends one session; deleteForUser ends all of a user's; purgeExpired clears idle ones", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      const a = await db.sessions.create("alice");
      const a2 = await db.sessions.create("alice");
      const b = await db.sessions.create("bob");
      expect(await db.sessions.delete(a.id)).toBe(true);
      expect(await db.sessions.delete(a.id)).toBe(false);
      expect(await db.sessions.deleteForUser("alice")).toBe(1);
      expect(await db.sessions.get(a2.id)).toBeUndefined();
      t.advance(61 * 60_000);
      expect(await db.sessions.purgeExpired()).toBe(1);
      expect(await db.sessions.get(b.id)).toBeUndefined();
    });
  });

  describe("sign-in throttle", () => {
    it("counts an attempt when it is reserved: the fifth locks the key for 15 minutes and nothing more is counted", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      for (let i = 1; i <= 4; i++) {
        expect(await db.throttle.reserve(["user:alice"])).toEqual({ ok: true });
        expect(await db.throttle.state("user:alice")).toMatchObject({ failures: i, locked: false });
        t.advance(60_000);
      }
      expect(await db.throttle.reserve(["user:alice"])).toEqual({ ok: true });
      expect(await db.throttle.state("user:alice")).toMatchObject({
        failures: 5,
        lockedUntil: t.now() + 15 * 60_000,
      });
      expect(await db.throttle.reserve(["user:alice", "addr:10.0.0.1"])).toEqual({
        ok: false,
        retryAfterMs: 15 * 60_000,
      });
      // A refused reservation counts on no key.
      expect((await db.throttle.state("addr:10.0.0.1")).failures).toBe(0);
      expect((await db.throttle.state("user:alice")).failures).toBe(5);
      t.advance(15 * 60_000 - 1);
      expect(await db.throttle.isLocked("user:alice")).toBe(true);
      t.advance(1);
      expect(await db.throttle.isLocked("user:alice")).toBe(false);
    });

    it("counts every one of many simultaneous first attempts on a new key: five pass, the rest are refused", async () => {
      const db = await driver.open();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => db.throttle.reserve(["user:new", "addr:10.9.9.9"])),
      );
      expect(answers.filter((a) => a.ok)).toHaveLength(5);
      expect(await db.throttle.state("user:new")).toMatchObject({ failures: 5, locked: true });
      expect((await db.throttle.state("addr:10.9.9.9")).failures).toBe(5);
    });

    it("doubles each further lock in a row, and starts over after a quiet window", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now, throttle: { maxLockMs: 40 * 60_000 } });
      const lockFor = async () => {
        for (let i = 0; i < 5; i++) await db.throttle.reserve(["k"]);
        return ((await db.throttle.state("k")).lockedUntil ?? 0) - t.now();
      };
      expect(await lockFor()).toBe(15 * 60_000);
      t.advance(15 * 60_000);
      expect(await lockFor()).toBe(30 * 60_000);
      t.advance(30 * 60_000);
      expect(await lockFor()).toBe(40 * 60_000); // capped
      t.advance(40 * 60_000 + 15 * 60_000); // lock over, then a quiet window
      expect(await lockFor()).toBe(15 * 60_000);
    });

    it("failures spread wider than the window never lock", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      for (let i = 0; i < 10; i++) {
        expect((await db.throttle.reserve(["addr:1.2.3.4"])).ok).toBe(true);
        t.advance(15 * 60_000);
      }
      expect(await db.throttle.isLocked("addr:1.2.3.4")).toBe(false);
    });

    it("a success resets the account's key but only takes back its own attempt on the address", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      for (let i = 0; i < 3; i++) await db.throttle.reserve(["user:alice", "addr:a"]);
      await db.throttle.succeeded(["user:alice"], ["addr:a"]);
      expect((await db.throttle.state("user:alice")).failures).toBe(0);
      expect((await db.throttle.state("addr:a")).failures).toBe(2);
    });

    it("remembers the addresses an account signed in from, for 30 days", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      expect(await db.throttle.isKnown("Alice", "10.0.0.1")).toBe(false);
      await db.throttle.markKnown("alice", "10.0.0.1");
      expect(await db.throttle.isKnown("ALICE", "10.0.0.1")).toBe(true);
      expect(await db.throttle.isKnown("alice", "10.0.0.2")).toBe(false);
      t.advance(30 * 24 * 60 * 60_000);
      expect(await db.throttle.isKnown("alice", "10.0.0.1")).toBe(false);
    });
  });
});
