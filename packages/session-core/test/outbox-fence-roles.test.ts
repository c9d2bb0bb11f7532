// The outbox sender's role fence as this instance builds it (outbox-fence.ts, #45.3): each due read
// names the one session (its incarnation) of its link holding every outbox role it sends for; a role
// it no longer counts as held refuses the read here (role_not_held) before the store is asked; and a
// refusal, here or the store's, is told from other failures (the sender warns that another instance
// holds its roles instead of reporting the store failed).
import { describe, expect, it } from "vitest";
import type { Coordination, HeldLock } from "../src/coordination.js";
import { roleFence, roleRefused } from "../src/outbox-fence.js";

/** A coordination whose link holds `held` (role -> its session, pid and incarnation, and key). */
const holding = (held: Record<string, HeldLock>) =>
  ({ roleLock: (role: string) => held[role] }) as unknown as Coordination;

describe("the outbox sender's role fence", () => {
  it("is none for a coordination that cannot name role locks (one instance), and none for no roles", () => {
    expect(roleFence({} as Coordination, ["outbox:0"])).toBeUndefined();
    expect(roleFence(holding({ "outbox:0": { pid: 7, key: "1", incarnation: "70" } }), [])).toBeUndefined();
  });

  it("names the one session holding every role and each role's key, read anew for each due read", () => {
    const held: Record<string, HeldLock> = {
      "outbox:0": { pid: 7, key: "10", incarnation: "70" },
      "outbox:3": { pid: 7, key: "13", incarnation: "70" },
    };
    const fence = roleFence(holding(held), ["outbox:0", "outbox:3"]);
    expect(fence?.()).toEqual({ pid: 7, keys: ["10", "13"], incarnation: "70" });
    held["outbox:0"] = { pid: 9, key: "10", incarnation: "90" };
    held["outbox:3"] = { pid: 9, key: "13", incarnation: "90" };
    expect(fence?.()).toEqual({ pid: 9, keys: ["10", "13"], incarnation: "90" });
  });

  it("refuses the read (role_not_held) when a role, first or not, is no longer counted held, or the roles are held by different sessions", () => {
    const refusal = (held: Record<string, HeldLock>) => {
      const fence = roleFence(holding(held), ["outbox:0", "outbox:3"]);
      try {
        fence?.();
      } catch (err) {
        return err;
      }
      return undefined;
    };
    const cases: Record<string, HeldLock>[] = [
      { "outbox:3": { pid: 7, key: "13", incarnation: "70" } },
      { "outbox:0": { pid: 7, key: "10", incarnation: "70" } },
      {
        "outbox:0": { pid: 7, key: "10", incarnation: "70" },
        "outbox:3": { pid: 8, key: "13", incarnation: "80" },
      },
      {},
    ];
    for (const held of cases) {
      const err = refusal(held);
      expect(err, JSON.stringify(held)).toBeInstanceOf(Error);
      expect(err).toMatchObject({
        code: "role_not_held",
        message: "this instance no longer holds its outbox roles",
      });
      expect(roleRefused(err)).toBe(true);
    }
  });

  it("tells a refused due read, the store's (role_not_held, also as the cause of a wrapper) or its own, from any other failure", () => {
    const stores = Object.assign(new Error("the outbox roles are no longer all held"), {
      code: "role_not_held",
    });
    expect(roleRefused(stores)).toBe(true);
    expect(roleRefused(new Error("failed query", { cause: stores }))).toBe(true);
    expect(roleRefused(new Error("connection terminated"))).toBe(false);
    expect(roleRefused(Object.assign(new Error("canceled"), { code: "57014" }))).toBe(false);
    expect(roleRefused(new Error("failed query", { cause: { code: "57014" } }))).toBe(false);
    expect(roleRefused(undefined)).toBe(false);
  });
});
