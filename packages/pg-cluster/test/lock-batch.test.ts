// Lock requests on one link share statements (lock-batch.ts): a burst of takes, fences and
// releases costs a few round trips instead of one each, and every caller still gets the answer a
// statement of its own would have given.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { ThreadLocks, threadKey, threadLockName } from "../src/index.js";
import { LockBatch, type LockOp } from "../src/lock-batch.js";
import { lockHolders, queriesOf, usePostgres } from "./helpers.js";

describe.skipIf(postgresMissing)("lock requests on one link over PostgreSQL", () => {
  const pg = usePostgres();
  const open = () => pg.link({ healthCheckMs: 0 });

  it("a burst of takes, fences and releases shares statements; each answer is the server's for its key", async () => {
    const a = await open();
    const b = await open();
    const la = new ThreadLocks(a);
    const lb = new ThreadLocks(b);
    const keys = Array.from({ length: 40 }, (_, i) => threadKey("g", `t${i}`));
    // Another instance holds every fourth thread; this one holds t1 and t2 already.
    for (const [i, key] of keys.entries()) if (i % 4 === 0) expect(await la.tryLock(key)).toBe(true);
    expect(await lb.tryLock(keys[1]!)).toBe(true);
    expect(await lb.tryLock(keys[2]!)).toBe(true);

    const taken: boolean[] = [];
    const fences: string[] = [];
    const sent = await queriesOf(async () => {
      await Promise.all([
        ...keys.slice(3).map(async (key, i) => {
          taken[i + 3] = await lb.tryLock(key);
        }),
        lb.assertHeld(keys[1]!).then(
          () => fences.push("t1 held"),
          () => fences.push("t1 lost"),
        ),
        lb.unlock(keys[2]!).then((ok) => fences.push(`t2 released ${ok}`)),
      ]);
    });
    expect(sent.length).toBeLessThan(5);
    for (let i = 3; i < keys.length; i++) expect(taken[i]).toBe(i % 4 !== 0);
    expect(fences.sort()).toEqual(["t1 held", "t2 released true"]);
    for (const [i, key] of keys.entries()) {
      const holders = await lockHolders(pg.mon, threadLockName(key));
      const expected = i % 4 === 0 ? [a.backendPid] : i === 2 ? [] : [b.backendPid];
      expect(holders, key).toEqual(expected);
    }
    // A fence of a lock given back (by anything on the session) is refused by the server.
    await b.query("SELECT pg_advisory_unlock_all()");
    await expect(lb.assertHeld(keys[1]!)).rejects.toThrow(/no longer holds its lock/);
  });
});

describe("grouping of lock requests", () => {
  it("requests for one key keep their order, each in a later statement; other keys share the first", async () => {
    const statements: [LockOp, string][][] = [];
    const held = new Set<string>();
    const batch = new LockBatch(async (ops, keys) => {
      statements.push(ops.map((op, i) => [op, keys[i]!]));
      const yes = new Set<string>();
      for (const [i, key] of keys.entries()) {
        const op = ops[i]!;
        if (op === "lock" && !held.has(key)) {
          held.add(key);
          yes.add(key);
        } else if (op === "unlock" && held.delete(key)) yes.add(key);
        else if (op === "held" && held.has(key)) yes.add(key);
      }
      return yes;
    });
    const answers = await Promise.all([
      batch.request("lock", "1"),
      batch.request("lock", "2"),
      batch.request("unlock", "1"),
      batch.request("held", "2"),
      batch.request("held", "1"),
      batch.request("lock", "3"),
    ]);
    expect(answers).toEqual([true, true, true, true, false, true]);
    expect(statements).toEqual([
      [
        ["lock", "1"],
        ["lock", "2"],
      ],
      [
        ["unlock", "1"],
        ["held", "2"],
      ],
      [
        ["held", "1"],
        ["lock", "3"],
      ],
    ]);
  });

  it("a failed statement of several asks each request again alone (a take as a retake): only the one failing alone is refused, and the next statement still goes", async () => {
    const statements: [LockOp, string][][] = [];
    const batch = new LockBatch(async (ops, keys) => {
      statements.push(ops.map((op, i) => [op, keys[i]!]));
      if (statements.length === 1 || keys.includes("2")) throw new Error("out of shared memory");
      return new Set(keys);
    });
    const results = await Promise.allSettled([
      batch.request("lock", "1"),
      batch.request("lock", "2"),
      batch.request("held", "3"),
    ]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : String(r.reason)))).toEqual([
      true,
      "Error: out of shared memory",
      true,
    ]);
    expect(statements).toEqual([
      [
        ["lock", "1"],
        ["lock", "2"],
        ["held", "3"],
      ],
      [["retake", "1"]],
      [["retake", "2"]],
      [["held", "3"]],
    ]);
    expect(await batch.request("lock", "1")).toBe(true);
    expect(statements.at(-1)).toEqual([["lock", "1"]]);
  });

  it("a give-back of a failed statement, asked again alone, is answered true though the server finds the lock already given back; other answers stay the server's", async () => {
    const statements: [LockOp, string][][] = [];
    const batch = new LockBatch(async (ops, keys) => {
      statements.push(ops.map((op, i) => [op, keys[i]!]));
      if (statements.length === 1) throw new Error("out of shared memory");
      // Asked again: the failed statement gave lock 1 back; nobody holds 3.
      return new Set(keys.filter((k) => k === "2"));
    });
    const answers = await Promise.all([
      batch.request("unlock", "1"),
      batch.request("lock", "2"),
      batch.request("held", "3"),
      batch.request("busy", "4"),
    ]);
    expect(answers).toEqual([true, true, false, false]);
    expect(statements.slice(1)).toEqual([
      [["unlock", "1"]],
      [["retake", "2"]],
      [["held", "3"]],
      [["busy", "4"]],
    ]);
  });

  it("a give-back asked again alone that fails again is refused with that failure", async () => {
    const batch = new LockBatch(async (_ops, keys) => {
      throw new Error(`refused ${keys.join(",")}`);
    });
    const results = await Promise.allSettled([batch.request("unlock", "1"), batch.request("held", "2")]);
    expect(results.map((r) => (r.status === "rejected" ? String(r.reason) : r.value))).toEqual([
      "Error: refused 1",
      "Error: refused 2",
    ]);
  });

  it("a failed statement of one request is not asked again: the connection it failed on may be gone", async () => {
    let calls = 0;
    const batch = new LockBatch(async () => {
      calls++;
      throw new Error("connection ended");
    });
    await expect(batch.request("lock", "1")).rejects.toThrow("connection ended");
    expect(calls).toBe(1);
  });
});
