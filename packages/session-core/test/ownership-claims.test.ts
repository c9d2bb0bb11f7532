// What a claim of a thread answers, and what it leaves, on instance "a" of a memory cluster: a
// thread another instance holds (asked again, announced to, joined), one whose adoption fails, one
// whose lost turn winds down, one refused for want of room; claimSoon's tries; and what a poke hands
// on (an announcement's carried record, each record once). Found by `pnpm mutate session-core
// src/ownership.ts` (#45): no ownership test asked a claim of a thread held elsewhere, or failed an
// adoption, and poke's carried record and claimSoon were run by none.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ClusterMessage } from "../src/index.js";
import { held, owner } from "./ownership-rig.js";
import { until } from "./session-harness.js";

const T = "gw:mock:T";

afterEach(() => {
  vi.useRealTimers();
});

/** The rig with thread T held by instance "b". */
async function heldByB(o = owner(5)) {
  const b = o.cluster.instance("b");
  expect(await b.acquireThread(T)).toBe(true);
  return { ...o, b };
}

describe("a claim of a thread", () => {
  it("held by another instance runs nothing here, answered elsewhere however often it is asked", async () => {
    const o = await heldByB();
    const ran: string[] = [];
    expect(await o.own.withHeld("mock", "T", async () => void ran.push("T"))).toBe("elsewhere");
    expect(await o.own.claim("mock", "T")).toBe(false);
    expect(await o.own.claim("mock", "T")).toBe(false);
    expect(ran).toEqual([]);
    expect(o.own.holdsAny).toBe(false);
    expect(o.cluster.holders().get(T)).toBe("b");
  });

  it("taken here counts as held (holdsAny), and its stored state is adopted once for claims made together", async () => {
    let adopted = 0;
    const o = owner(5, 600_000, { adopt: async () => void adopted++ });
    expect(o.own.holdsAny).toBe(false);
    expect(await Promise.all([o.own.claim("mock", "T"), o.own.claim("mock", "T")])).toEqual([true, true]);
    expect(adopted).toBe(1);
    expect(o.own.holdsAny).toBe(true);
    expect(held(o)).toEqual([T]);
  });

  it("with a message to announce, held elsewhere: the holder gets it with the take (announced); a claim that joined that take did not announce (elsewhere)", async () => {
    const o = await heldByB();
    const heard: unknown[] = [];
    o.b.subscribe((m) => void heard.push(m));
    const message = { kind: "inbox", key: T } as unknown as ClusterMessage;
    const answers = await Promise.all([
      o.own.withHeld("mock", "T", async () => {}, message),
      o.own.withHeld("mock", "T", async () => {}),
    ]);
    expect(answers).toEqual(["announced", "elsewhere"]);
    await until(() => heard.length > 0, "the announcement heard by b");
    expect(heard).toEqual([message]);
    // Free: taken and run here, nothing announced.
    await o.b.releaseThread(T);
    const ran: string[] = [];
    expect(await o.own.withHeld("mock", "T", async () => void ran.push("T"), message)).toBe("ran");
    expect(ran).toEqual(["T"]);
    expect(o.cluster.holders().get(T)).toBe("a");
    expect(heard).toEqual([message]);
  });

  it("with a message to announce, refused for another reason (this instance's connection gone) runs nothing and is answered elsewhere", async () => {
    const o = owner(5);
    o.cluster.drop("a");
    const ran: string[] = [];
    const message = { kind: "inbox", key: T } as unknown as ClusterMessage;
    expect(await o.own.withHeld("mock", "T", async () => void ran.push("T"), message)).toBe("elsewhere");
    expect(ran).toEqual([]);
    expect(o.own.holdsAny).toBe(false);
  });

  it("whose stored state cannot be adopted is not run and its lock is given back; the next claim adopts again", async () => {
    let adopts = 0;
    const o = owner(5, 600_000, {
      adopt: async () => {
        adopts++;
        throw new Error("unreadable state");
      },
    });
    const ran: string[] = [];
    expect(await o.own.withHeld("mock", "T", async () => void ran.push("T"))).toBe("free");
    expect(ran).toEqual([]);
    expect(held(o)).toEqual([]);
    expect(o.own.holdsAny).toBe(false);
    expect(await o.own.claim("mock", "T")).toBe(false);
    expect(adopts).toBe(2);
  });

  it("whose turn lost here still winds down is not taken again (free) until it is forgotten", async () => {
    const o = owner(5);
    await o.threads.with("mock", "T", async (state) => {
      state.lost = true;
    });
    const ran: string[] = [];
    expect(await o.own.withHeld("mock", "T", async () => void ran.push("T"))).toBe("free");
    expect(ran).toEqual([]);
    expect(held(o)).toEqual([]);
  });

  it("refused for want of room under the cap is answered free (an instance with room may take it)", async () => {
    const o = owner(1);
    o.queued.set("A", [o.record(1, "A", "a1")]);
    await o.own.poke("mock", "A"); // its turn keeps running: no room made
    const ran: string[] = [];
    expect(await o.own.withHeld("mock", "T", async () => void ran.push("T"))).toBe("free");
    expect(ran).toEqual([]);
    expect(held(o)).toEqual(["gw:mock:A"]);
  });
});

describe("a thread let go", () => {
  it("is remembered as let go lately (an announcement of it is looked at)", async () => {
    const o = owner(5, 0);
    expect(o.own.recentlyLet.has(T)).toBe(false);
    await o.own.poke("mock", "T"); // nothing queued: let go at once (no hold)
    expect(held(o)).toEqual([]);
    expect(o.own.recentlyLet.has(T)).toBe(true);
  });

  it("for a thread waiting for room is the oldest kept one only: the next kept one stays", async () => {
    const o = owner(2);
    await o.own.poke("mock", "A");
    await o.own.poke("mock", "B");
    o.queued.set("C", [o.record(1, "C", "c1")]);
    expect(await o.own.claim("mock", "C")).toBe(false);
    await until(() => o.taken.includes("C:c1"), "C taken once a kept thread is let go");
    expect(o.taken).toEqual(["C:c1"]);
    expect(held(o)).toEqual(["gw:mock:B", "gw:mock:C"]);
  });

  it("whose work ends while another waits for room is let go at once, not kept for its hold", async () => {
    const o = owner(1);
    o.queued.set("A", [o.record(1, "A", "a1")]);
    await o.own.poke("mock", "A"); // its turn keeps running: no room made
    o.queued.set("C", [o.record(2, "C", "c1")]);
    expect(await o.own.claim("mock", "C")).toBe(false);
    o.queued.set("A", []);
    await o.threads.with("mock", "A", async (state) => {
      state.active = undefined; // A's turn ends
    });
    await until(() => o.taken.includes("C:c1"), "C taken once A is let go");
    expect(held(o)).toEqual(["gw:mock:C"]);
  });

  it("by a lock lost makes room for a thread waiting for it", async () => {
    const o = owner(1);
    o.queued.set("A", [o.record(1, "A", "a1")]);
    await o.own.poke("mock", "A"); // its turn keeps running: no room made
    o.queued.set("C", [o.record(2, "C", "c1")]);
    expect(await o.own.claim("mock", "C")).toBe(false);
    o.own.lost(["gw:mock:A"]);
    await until(() => o.taken.includes("C:c1"), "C taken once A's lock is lost");
    expect(o.taken).toEqual(["A:a1", "C:c1"]);
    expect(o.cluster.holders().get("gw:mock:C")).toBe("a");
  });
});

describe("claimSoon", () => {
  it("tries `attempts` times 100 ms apart: it gets a thread whose holder lets go before its last try, not after", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    // Three tries (0, 100, 200 ms): b lets go at 150.
    const soon = await heldByB();
    const three = soon.own.claimSoon("mock", "T", 3);
    await vi.advanceTimersByTimeAsync(150);
    await soon.b.releaseThread(T);
    await vi.advanceTimersByTimeAsync(100);
    expect(await three).toBe(true);
    expect(soon.cluster.holders().get(T)).toBe("a");
    // Two tries (0, 100 ms): b lets go at 150, after the last one; answered false at 200 ms.
    const late = await heldByB();
    let answer: boolean | undefined;
    void late.own.claimSoon("mock", "T", 2).then((a) => (answer = a));
    await vi.advanceTimersByTimeAsync(150);
    await late.b.releaseThread(T);
    await vi.advanceTimersByTimeAsync(49);
    expect(answer).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(answer).toBe(false);
    expect(held(late)).toEqual([]);
  });

  it("answers true at once for a free thread", async () => {
    const o = owner(5);
    expect(await o.own.claimSoon("mock", "T", 1)).toBe(true);
  });
});

describe("a poke of a thread", () => {
  it("hands on an announcement's carried record without a read when the records before it were taken here, each record once", async () => {
    const o = owner(5);
    const carried = (id: number, prior: number[]) => ({
      msg: { inboxId: id, text: `m${id}`, origin: { gateway: "mock", thread: "T" } },
      prior,
    });
    await o.own.poke("mock", "T", carried(1, []));
    await o.own.poke("mock", "T", carried(2, [1]));
    await o.own.poke("mock", "T", carried(2, [1])); // announced twice: handed on once
    expect(o.taken).toEqual(["T:m1", "T:m2"]);
    expect(o.reads).toEqual([]);
    // A record before it not taken here: the store is read, and what it holds taken in order.
    o.queued.set("T", [o.record(3, "T", "m3"), o.record(4, "T", "m4")]);
    await o.own.poke("mock", "T", carried(4, [3]));
    expect(o.reads).toEqual(["T"]);
    expect(o.taken).toEqual(["T:m1", "T:m2", "T:m3", "T:m4"]);
  });

  it("takes each queued record once however often the store is read", async () => {
    const o = owner(5);
    o.queued.set("T", [o.record(1, "T", "one")]);
    await o.own.poke("mock", "T");
    await o.own.poke("mock", "T");
    expect(o.reads).toEqual(["T", "T"]);
    expect(o.taken).toEqual(["T:one"]);
  });

  it("takes nothing while the session stops", async () => {
    const o = owner(5, 600_000, { stopping: () => true });
    o.queued.set("T", [o.record(1, "T", "one")]);
    await o.own.poke("mock", "T");
    expect(o.taken).toEqual([]);
    expect(held(o)).toEqual([]);
  });
});
