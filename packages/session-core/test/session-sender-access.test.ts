// Sender access inside a real session over a real SQLite store: rate limits under concurrent
// messages, group policies, redeliveries of refused messages, the gateway-wide limit.
import { describe, expect, it } from "vitest";
import type { Inbound, SenderAccessOptions } from "../src/index.js";
import { memoryOf, type Rig, useRig } from "./session-harness.js";

const openRig = useRig();
let seq = 0;

async function withAccess(access: SenderAccessOptions): Promise<Rig> {
  return openRig({ entries: [{ name: "mock", type: "mock", access }] });
}

function message(r: Rig, from: string, text: string, chat?: Inbound["chat"], dedupKey = `k${++seq}`) {
  return r.session.deliver({
    gateway: "mock",
    dedupKey,
    thread: chat?.type === "group" ? chat.id : from,
    text,
    author: { id: from },
    ...(chat ? { chat } : {}),
  });
}

async function userTexts(r: Rig, thread: string): Promise<string[]> {
  return (await memoryOf(r, "mock", thread)).flatMap((m) => (m.role === "user" ? [String(m.content)] : []));
}

describe("sender access in the session", () => {
  it("30 concurrent messages from one sender under a limit of 5: exactly 5 turns, one answer saying when to try again", async () => {
    const r = await withAccess({ rateLimit: { messages: 5, perSeconds: 600 } });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => message(r, "+15550001", `m${i}`)));
    expect(results.every((x) => x.accepted)).toBe(true);
    await r.session.idle(20_000);
    expect(await userTexts(r, "+15550001")).toHaveLength(5);
    const refusals = r.gateway.textsTo("+15550001").filter((t) => t.includes("try again in"));
    expect(refusals).toEqual([
      "You are sending messages faster than this assistant accepts (5 per 10 minutes). Please try again in 10 minutes.",
    ]);
    expect(r.runs.starts).toHaveLength(5);
  });

  it("the gateway-wide limit is shared by all senders", async () => {
    const r = await withAccess({ gatewayRateLimit: { messages: 3, perSeconds: 600 } });
    for (const from of ["a", "b", "c", "d", "e"]) await message(r, from, `from ${from}`);
    await r.session.idle(20_000);
    const answered = [];
    for (const from of ["a", "b", "c", "d", "e"]) answered.push((await userTexts(r, from)).length);
    expect(answered).toEqual([1, 1, 1, 0, 0]);
    expect(r.gateway.textsTo("d").join()).toContain("try again in");
    expect(r.gateway.textsTo("e")).toEqual([]);
  });

  it("a refused message delivered again is neither answered again nor counted again", async () => {
    const r = await withAccess({
      dmPolicy: "allowlist",
      allowFrom: ["ann"],
      rateLimit: { messages: 1, perSeconds: 600 },
    });
    for (let i = 0; i < 3; i++)
      expect(await message(r, "bob", "hi", undefined, "same-bob")).toMatchObject(
        i === 0 ? { accepted: true } : { duplicate: true },
      );
    for (let i = 0; i < 3; i++) await message(r, "ann", "hello", undefined, "same-ann");
    await r.session.idle(20_000);
    expect(r.gateway.textsTo("bob")).toEqual([
      "Sorry, this assistant only answers people its owner has allowed.",
    ]);
    expect(await userTexts(r, "ann")).toEqual(["hello"]);
    expect(r.gateway.textsTo("ann").join()).not.toContain("try again");
  });

  it("groupPolicy allowlist: a listed group is answered, another is ignored without a word; direct messages stay open", async () => {
    const r = await withAccess({ groupPolicy: "allowlist", groupAllowFrom: ["-100123"] });
    await message(r, "ann", "in the team group", { type: "group", id: "-100123" });
    await message(r, "ann", "in a random group", { type: "group", id: "-100999" });
    await message(r, "ann", "in a group without the minus", { type: "group", id: "100123" });
    await message(r, "bob", "directly", { type: "direct", id: "bob" });
    await r.session.idle(20_000);
    expect(await userTexts(r, "-100123")).toEqual(["in the team group"]);
    expect(await userTexts(r, "-100999")).toEqual([]);
    expect(await userTexts(r, "100123")).toEqual([]);
    expect(r.gateway.textsTo("-100999")).toEqual([]);
    expect(await userTexts(r, "bob")).toEqual(["directly"]);
  });

  it("groupPolicy disabled with dmPolicy allowlist: groups are ignored, a listed sender is answered directly, matched by number however written", async () => {
    const r = await withAccess({
      groupPolicy: "disabled",
      dmPolicy: "allowlist",
      allowFrom: ["+1 (555) 000-2222"],
    });
    await message(r, "15550002222", "hello", { type: "direct", id: "15550002222" });
    await message(r, "15550002222", "group hello", { type: "group", id: "g1" });
    await r.session.idle(20_000);
    expect(await userTexts(r, "15550002222")).toEqual(["hello"]);
    expect(await userTexts(r, "g1")).toEqual([]);
    expect(r.gateway.textsTo("g1")).toEqual([]);
  });
  it("a refusal whose answer cannot be written leaves nothing behind: deliver fails (no acknowledgement), the redelivery is refused and answered once", async () => {
    const r = await withAccess({ dmPolicy: "allowlist", allowFrom: ["ann"] });
    const enqueue = r.db.outbox.enqueue.bind(r.db.outbox);
    let failures = 1;
    r.db.outbox.enqueue = async (items) => {
      if (failures-- > 0) throw new Error("disk full");
      return enqueue(items);
    };
    await expect(message(r, "bob", "hi", undefined, "bob-1")).rejects.toThrow("disk full");
    expect(await r.db.inbox.unfinished()).toEqual([]);
    expect(await message(r, "bob", "hi", undefined, "bob-1")).toMatchObject({ accepted: true });
    await r.session.idle(20_000);
    expect(r.gateway.textsTo("bob")).toEqual([
      "Sorry, this assistant only answers people its owner has allowed.",
    ]);
    expect(await userTexts(r, "bob")).toEqual([]);
    expect(r.runs.starts).toHaveLength(0);
  });
  it("approvers and the approval destination may write under an allowlist (their typed decisions arrive); others are refused", async () => {
    const r = await openRig({
      entries: [
        {
          name: "mock",
          type: "mock",
          approvers: ["boss"],
          approvalDestination: "ops-room",
          access: { dmPolicy: "allowlist", allowFrom: [], refusalReply: false },
        },
      ],
    });
    await message(r, "boss", "from the approver");
    await message(r, "someone", "from the ops room", { type: "direct", id: "ops-room" });
    await message(r, "bob", "from a stranger");
    await r.session.idle(20_000);
    expect(await userTexts(r, "boss")).toEqual(["from the approver"]);
    expect(await userTexts(r, "bob")).toEqual([]);
    expect(r.runs.starts).toHaveLength(2);
  });
});
