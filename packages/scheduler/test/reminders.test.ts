// Reminders set with the remind tool, through a real gateway session (demo model, SQLite file, mock
// push gateway) and the schedule runner on a hand-moved clock: who and where come from the run's
// origin; the reminder's own turn cannot set another; one-offs fire once, late after a downtime.
import type { ToolContext, ToolDefinition } from "@agentsvc/agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { remindTools } from "../src/index.js";
import { type Rig, rig } from "./rig.js";

const HOUR = 3_600_000;
const open: Rig[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

async function newRig(o?: Parameters<typeof rig>[0]): Promise<Rig> {
  const r = await rig(o);
  open.push(r);
  return r;
}

/** A turn that sets a reminder in an hour, then answers; the same script plays in every turn. */
const SETS_A_REMINDER = [
  { toolCalls: [{ name: "remind", arguments: { text: "drink tea", in: "1h" } }] },
  { text: "Okay." },
];

const ctxOf = (origin: ToolContext["origin"]): ToolContext => ({
  threadId: "t",
  userId: "telegram",
  conversationId: "chat-1",
  signal: new AbortController().signal,
  ...(origin ? { origin } : {}),
});
const inChat = (author: string, thread = "chat-1") =>
  ctxOf({ gateway: "telegram", thread, author: { id: author } });
const tool = (tools: ToolDefinition[], name: string) => tools.find((t) => t.name === name)!;

describe("the remind tool", () => {
  it("a reminder set in a chat fires into that chat once, an hour later; its own turn cannot set another", async () => {
    const r = await newRig({ script: SETS_A_REMINDER, reminders: {} });
    const runner = r.runner([]);
    await runner.start();
    await r.gateway.inject({ thread: "chat-1", text: "remind me to drink tea in an hour", author: "u1" });
    await r.session.idle();
    expect(r.gateway.textsTo("chat-1")).toEqual(["Okay."]);
    const [set] = await r.db.reminders.active();
    expect(set).toMatchObject({ gateway: "telegram", thread: "chat-1", userId: "u1", text: "drink tea" });
    expect(set!.at).toBe(r.clock.now + HOUR);

    for (const step of [HOUR - 1_000, 1_000, 1_000, 60_000]) {
      r.clock.now += step;
      await runner.pass();
      await r.session.idle();
    }
    // The reminder's turn ran the same script: its remind call was refused, so nothing new is set.
    expect(r.gateway.textsTo("chat-1")).toEqual(["Okay.", "Okay."]);
    expect(await r.db.reminders.active()).toEqual([]);
    expect(await r.db.reminders.get(set!.id)).toMatchObject({ ended: "done" });
    await runner.pass();
    expect(await r.db.scheduleTicks.last(`reminder:${set!.id}`)).toMatchObject({
      outcome: "delivered",
      tickAt: set!.at,
    });
    const turns = await r.db.inbox.unfinished();
    expect(turns).toEqual([]);
  });

  it("a one-off reminder due while no runner ran fires once when two start", async () => {
    const r = await newRig({ reminders: {} });
    const tools = remindTools({ store: r.db.reminders, agent: "root", now: () => r.clock.now });
    await tool(tools, "remind").execute({ text: "call mum", in: "10m" }, inChat("u1"));
    r.clock.now += 3 * HOUR;
    const a = r.runner([]);
    await a.start();
    const b = r.runner([], { instance: "b" });
    await b.start();
    await r.session.idle();
    expect(r.gateway.textsTo("chat-1")).toEqual(["Here is your digest."]);
    await a.pass();
    await b.pass();
    expect(r.gateway.textsTo("chat-1")).toHaveLength(1);
    expect(await r.db.reminders.active()).toEqual([]);
  });

  it("a cancelled recurring reminder stops; the user lists and cancels only their own, in this chat", async () => {
    const r = await newRig({ reminders: {} });
    const tools = remindTools({
      store: r.db.reminders,
      agent: "root",
      timezone: "Europe/Berlin",
      now: () => r.clock.now,
    });
    const daily = (await tool(tools, "remind").execute(
      { text: "stand-up", cron: "0 9 * * *" },
      inChat("u1"),
    )) as {
      id: number;
      next: string;
    };
    // 09:00 in Berlin is 08:00 UTC in December; the rig starts at 09:00:30 UTC on 1 December.
    expect(daily.next).toBe("2026-12-02 09:00 Europe/Berlin");
    await tool(tools, "remind").execute({ text: "other chat", in: "2h" }, inChat("u1", "chat-2"));
    await tool(tools, "remind").execute({ text: "not mine", in: "3d" }, inChat("u2"));
    const listed = (await tool(tools, "list_reminders").execute({}, inChat("u1"))) as {
      now: string;
      reminders: { id: number; text: string }[];
    };
    expect(listed.now).toBe("2026-12-01 10:00 Europe/Berlin");
    expect(listed.reminders.map((x) => x.text)).toEqual(["stand-up"]);
    const theirs = (await r.db.reminders.active()).find((x) => x.userId === "u2")!;
    await expect(tool(tools, "cancel_reminder").execute({ id: theirs.id }, inChat("u1"))).rejects.toThrow(
      `there is no active reminder ${theirs.id} of yours in this chat`,
    );

    const runner = r.runner([]);
    await runner.start();
    r.clock.now = Date.UTC(2026, 11, 2, 8, 0, 1);
    await runner.pass();
    await r.session.idle();
    expect(r.gateway.textsTo("chat-1")).toHaveLength(1);
    expect(await tool(tools, "cancel_reminder").execute({ id: daily.id }, inChat("u1"))).toEqual({
      cancelled: daily.id,
    });
    r.clock.now = Date.UTC(2026, 11, 3, 8, 0, 1);
    await runner.pass();
    await r.session.idle();
    expect(r.gateway.textsTo("chat-1")).toHaveLength(1);
  });

  it("refuses clearly: over the bound, outside a chat, inside a scheduled turn, bad times", async () => {
    const r = await newRig({ reminders: {} });
    const tools = remindTools({
      store: r.db.reminders,
      agent: "root",
      maxPerUser: 2,
      now: () => r.clock.now,
    });
    const remind = tool(tools, "remind");
    await remind.execute({ text: "a", in: "1h" }, inChat("u1"));
    await remind.execute({ text: "b", at: "2026-12-24T18:00" }, inChat("u1", "chat-2"));
    await expect(remind.execute({ text: "c", in: "1h" }, inChat("u1"))).rejects.toThrow(
      "you already have 2 active reminders, the most allowed (2); cancel one first",
    );
    await expect(remind.execute({ text: "c", in: "1h" }, ctxOf(undefined))).rejects.toThrow(
      "reminders can only be set, listed or cancelled from a chat",
    );
    await expect(remind.execute({ text: "c", in: "1h" }, inChat("schedule:reminder:1"))).rejects.toThrow(
      "started by a schedule or a reminder",
    );
    await expect(remind.execute({ text: "c", at: "2026-11-30T09:00" }, inChat("u3"))).rejects.toThrow(
      "in the past",
    );
    await expect(remind.execute({ text: "c", cron: "*/5 * * * *" }, inChat("u3"))).rejects.toThrow(
      "at most once an hour",
    );
    await expect(remind.execute({ text: "c", in: "1h", cron: "0 9 * * *" }, inChat("u3"))).rejects.toThrow(
      "exactly one of at, in and cron",
    );
  });
});
