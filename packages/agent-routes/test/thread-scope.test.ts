import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { agentThreadScope } from "../src/index.js";

/** The scope by its definition: `a.` + 22 base64url characters of the user id's SHA-256 + `/`. */
const expected = (userId: string) =>
  `a.${createHash("sha256").update(userId).digest("base64url").slice(0, 22)}/`;

describe("agentThreadScope", () => {
  it("gives a user the same scope on every request, and each user their own", () => {
    expect(agentThreadScope("anonymous")).toBe(expected("anonymous"));
    expect(agentThreadScope("anonymous")).toBe(expected("anonymous"));
    expect(agentThreadScope("key:ops")).toBe(expected("key:ops"));
    expect(agentThreadScope("key:ops")).not.toBe(agentThreadScope("anonymous"));
  });

  it("stays exact for every user past the ones it keeps (a stream of new users)", () => {
    const users = Array.from({ length: 2500 }, (_, i) => `user-${i}`);
    for (const user of users) expect(agentThreadScope(user)).toBe(expected(user));
    // Asked again after the kept ones were let go: made again, the same.
    for (const user of users.slice(0, 50)) expect(agentThreadScope(user)).toBe(expected(user));
    expect(new Set(users.map(agentThreadScope)).size).toBe(users.length);
  });
});
