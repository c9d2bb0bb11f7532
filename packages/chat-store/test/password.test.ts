import { describe, expect, it } from "vitest";
import {
  DEFAULT_PBKDF2_ITERATIONS,
  hashPassword,
  isPasswordHash,
  needsRehash,
  parsePasswordHash,
  verifyPassword,
} from "../src/index.js";

// Low iteration counts keep the suite quick; the default is checked separately once.
const FAST = { iterations: 1000 };

describe("password hashing", () => {
  it("produces pbkdf2$<iterations>$<salt>$<digest> with base64url salt and 32-byte digest", async () => {
    const hash = await hashPassword("s3cret", FAST);
    const parts = hash.split("$");
    expect(parts).toHaveLength(4);
    expect(parts[0]).toBe("pbkdf2");
    expect(parts[1]).toBe("1000");
    expect(parts[2]).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(parts[3]!, "base64url")).toHaveLength(32);
    expect(isPasswordHash(hash)).toBe(true);
  });

  it("uses 600000 iterations by default (OWASP guidance) and verifies with them", async () => {
    expect(DEFAULT_PBKDF2_ITERATIONS).toBe(600_000);
    const hash = await hashPassword("default-cost");
    expect(hash.split("$")[1]).toBe("600000");
    expect(await verifyPassword("default-cost", hash)).toBe(true);
  });

  it("salts per hash so the same password hashes differently", async () => {
    const a = await hashPassword("same", FAST);
    const b = await hashPassword("same", FAST);
    expect(a).not.toBe(b);
    expect(await verifyPassword("same", a)).toBe(true);
    expect(await verifyPassword("same", b)).toBe(true);
  });

  it("rejects a wrong password", async () => {
    const hash = await hashPassword("right", FAST);
    expect(await verifyPassword("wrong", hash)).toBe(false);
    expect(await verifyPassword("", hash)).toBe(false);
    expect(await verifyPassword("right ", hash)).toBe(false);
  });

  it("still verifies an old hash after the iteration count is raised", async () => {
    const old = await hashPassword("keep-me", { iterations: 1000 });
    const raised = await hashPassword("keep-me", { iterations: 5000 });
    expect(await verifyPassword("keep-me", old)).toBe(true);
    expect(await verifyPassword("keep-me", raised)).toBe(true);
    expect(needsRehash(old, 5000)).toBe(true);
    expect(needsRehash(raised, 5000)).toBe(false);
  });

  it("treats malformed hashes as non-matching instead of throwing", async () => {
    for (const bad of ["", "plain", "pbkdf2$0$abc$def", "pbkdf2$x$abc$def", "bcrypt$10$a$b", "pbkdf2$10$$"]) {
      expect(await verifyPassword("anything", bad)).toBe(false);
      expect(isPasswordHash(bad)).toBe(false);
    }
    expect(parsePasswordHash("pbkdf2$99999999999$abc$def")).toMatch(/iterations must be at most/);
  });

  it("refuses an invalid iteration count when hashing", async () => {
    await expect(hashPassword("x", { iterations: 0 })).rejects.toThrow(/iterations/);
    await expect(hashPassword("x", { iterations: 1.5 })).rejects.toThrow(/iterations/);
  });
});
