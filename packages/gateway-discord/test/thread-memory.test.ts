// What the Discord gateway remembers across restarts for its group rules (thread.ts): the threads
// it answered in (a follow-up there needs no mention), bounded to the newest 2,000, and the bot's
// managed role per guild (a mention of that role counts as a mention of the bot). Rows from the
// thread.ts survivors of `pnpm mutate gateway-discord` (#44).
import type { GatewayStateStore } from "@agentsvc/adapter-kit";
import { describe, expect, it } from "vitest";
import { ANSWERED_THREADS_LIMIT, botRoleIn, ThreadMemory } from "../src/thread.js";

/** A state store that keeps JSON text, as the durable one does, and counts writes. */
function jsonState() {
  const values = new Map<string, string>();
  let writes = 0;
  const store: GatewayStateStore = {
    get: async <T>(key: string) => {
      const text = values.get(key);
      return text === undefined ? undefined : (JSON.parse(text) as T);
    },
    set: async (key, value) => {
      writes += 1;
      values.set(key, JSON.stringify(value));
    },
    delete: async (key) => {
      values.delete(key);
    },
  };
  return { store, writes: () => writes };
}

describe("answered threads", () => {
  it("are remembered across a restart (a new memory on the same state)", async () => {
    const { store } = jsonState();
    const first = new ThreadMemory(store);
    expect(await first.answered("111")).toBe(false);
    await first.markAnswered("111");
    expect(await first.answered("111")).toBe(true);
    const restarted = new ThreadMemory(store);
    expect(await restarted.answered("111")).toBe(true);
    expect(await restarted.answered("222")).toBe(false);
  });

  it("keep the newest 2,000: a thread answered again counts as new, the oldest is forgotten first", async () => {
    const { store } = jsonState();
    const memory = new ThreadMemory(store);
    for (let i = 0; i < ANSWERED_THREADS_LIMIT; i++) await memory.markAnswered(`t${i}`);
    // t0 answered again: now the newest, so t1 is the oldest.
    await memory.markAnswered("t0");
    await memory.markAnswered("new");
    const restarted = new ThreadMemory(store);
    expect(await restarted.answered("t0")).toBe(true);
    expect(await restarted.answered("t1")).toBe(false);
    expect(await restarted.answered("t2")).toBe(true);
    expect(await restarted.answered("new")).toBe(true);
    expect(ANSWERED_THREADS_LIMIT).toBe(2_000);
  });

  it("a thread answered again takes one place, not two", async () => {
    const memory = new ThreadMemory(jsonState().store);
    for (const t of ["a", "b", "c", "b"]) await memory.markAnswered(t);
    // a, c, b and 1,997 more: exactly 2,000 distinct threads, so none is forgotten.
    for (let i = 0; i < ANSWERED_THREADS_LIMIT - 3; i++) await memory.markAnswered(`x${i}`);
    expect(await memory.answered("a")).toBe(true);
    await memory.markAnswered("one more");
    expect(await memory.answered("a")).toBe(false);
    expect(await memory.answered("c")).toBe(true);
  });

  it("answering the newest thread again writes nothing", async () => {
    const state = jsonState();
    const memory = new ThreadMemory(state.store);
    await memory.markAnswered("a");
    await memory.markAnswered("b");
    expect(state.writes()).toBe(2);
    await memory.markAnswered("b");
    expect(state.writes()).toBe(2);
    await memory.markAnswered("a");
    expect(state.writes()).toBe(3);
  });
});

describe("the durable form", () => {
  it("is read back as earlier versions wrote it: `answered-threads` (oldest first) and `bot-roles` (guild -> role)", async () => {
    const { store } = jsonState();
    await store.set("answered-threads", ["111", "222"]);
    await store.set("bot-roles", { g1: "r1" });
    const memory = new ThreadMemory(store);
    expect(await memory.answered("111")).toBe(true);
    expect(await memory.botRole("g1")).toBe("r1");
    // The oldest answered again moves to the end, once; the only thread answered again writes nothing.
    await memory.markAnswered("111");
    expect(await store.get("answered-threads")).toEqual(["222", "111"]);
    const single = jsonState();
    const one = new ThreadMemory(single.store);
    await one.markAnswered("only");
    await one.markAnswered("only");
    expect(single.writes()).toBe(1);
    expect(await single.store.get("answered-threads")).toEqual(["only"]);
  });
});

describe("the bot's role per guild", () => {
  it("is remembered per guild across a restart, and an unchanged role writes nothing", async () => {
    const state = jsonState();
    const memory = new ThreadMemory(state.store);
    expect(await memory.botRole("g1")).toBeUndefined();
    await memory.setBotRole("g1", "r1");
    await memory.setBotRole("g2", "r2");
    await memory.setBotRole("g1", "r1");
    expect(state.writes()).toBe(2);
    const restarted = new ThreadMemory(state.store);
    expect(await restarted.botRole("g1")).toBe("r1");
    expect(await restarted.botRole("g2")).toBe("r2");
    await restarted.setBotRole("g1", "r3");
    expect(await new ThreadMemory(state.store).botRole("g1")).toBe("r3");
  });

  it("is the role whose tags name the bot (https://discord.com/developers/docs/topics/permissions#role-object-role-tags-structure)", () => {
    const roles = [
      { id: "everyone" },
      { id: "other-bot", tags: { bot_id: "999" } },
      { id: "ours", tags: { bot_id: "42" } },
    ];
    expect(botRoleIn(roles, "42")).toBe("ours");
    expect(botRoleIn(roles, "7")).toBeUndefined();
    expect(botRoleIn(roles, undefined)).toBeUndefined();
    expect(botRoleIn(undefined, "42")).toBeUndefined();
    // Before the bot knows its own id, a role without a bot tag is not taken for it.
    expect(botRoleIn([{ id: "plain" }], undefined)).toBeUndefined();
  });
});
