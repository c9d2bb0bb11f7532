// WhatsApp end to end over real HTTP: the fake delivers as Meta does, a real session runs the turn,
// the reply reaches the fake's Graph route within the platform's limits.
import {
  eventually,
  type SessionRig,
  type SessionRigOptions,
  startSessionRig,
} from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { approvalInteractive, decisionOf } from "../src/approval-message.js";
import { nowSeconds, type WhatsappWorld, whatsappWorld } from "./harness.js";

const user = "15550001234";
let world: WhatsappWorld;
let rig: SessionRig;

async function boot(options: SessionRigOptions = {}) {
  world = await whatsappWorld();
  rig = await startSessionRig(world.build(), options);
}

afterEach(async () => {
  await rig?.stop();
  await world?.close();
});

describe("whatsapp end to end", () => {
  it("answers a text message, cutting a long reply into pieces of at most 4096 characters", async () => {
    const long = Array.from({ length: 1200 }, (_, i) => `word${i}`).join(" ");
    await boot({ replyText: long });
    const answer = await world.fake.deliverText({ from: user, text: "tell me everything", id: "wamid.long" });
    expect(answer.status).toBe(200);
    await eventually(() => world.fake.sent.length >= 3, "three pieces");
    await rig.session.idle(5_000);
    const pieces = world.fake.sent;
    expect(long.length).toBeGreaterThan(8192);
    expect(pieces).toHaveLength(3);
    for (const p of pieces) {
      expect(p).toMatchObject({ to: user, type: "text" });
      expect(p.text.length).toBeLessThanOrEqual(4096);
    }
    expect(
      pieces
        .map((p) => p.text)
        .join(" ")
        .replace(/\s+/g, " "),
    ).toBe(long);
  });

  it("the same delivery three times gives one turn and one reply", async () => {
    await boot();
    for (let i = 0; i < 3; i++) {
      const answer = await world.fake.deliverText({ from: user, text: "only once", id: "wamid.same" });
      expect(answer.status).toBe(200);
    }
    await eventually(() => world.fake.sent.length > 0, "the reply");
    await rig.session.idle(5_000);
    expect(world.fake.sent).toHaveLength(1);
    expect(await rig.userMessages(user)).toEqual(["only once"]);
  });

  it("renders an approval as reply buttons and runs the tool once when Approve is pressed", async () => {
    await boot();
    await world.fake.deliverText({ from: user, text: "please use delete_file on notes.txt" });
    await eventually(() => world.fake.sent.some((s) => s.type === "interactive"), "the approval request");
    const request = world.fake.sent.find((s) => s.type === "interactive");
    expect(request?.interactiveType).toBe("button");
    expect(request?.options.map((o) => o.title)).toEqual(["Approve", "Reject"]);
    expect(request?.text).toContain("delete_file");
    const approve = request?.options.find((o) => o.title === "Approve");
    const press = await world.fake.press(user, request?.id as string, approve?.id as string, "wamid.press");
    expect(press.status).toBe(200);
    await eventually(() => rig.executed.length > 0, "the approved tool running");
    // Meta delivering the same press again changes nothing.
    expect(
      (await world.fake.press(user, request?.id as string, approve?.id as string, "wamid.press")).status,
    ).toBe(200);
    await rig.session.idle(5_000);
    expect(rig.executed).toHaveLength(1);
    expect(world.fake.sent.some((s) => s.type === "text" && s.text.includes("deleted"))).toBe(true);
  });

  it("ignores a press from someone else than the thread's participant", async () => {
    await boot();
    await world.fake.deliverText({ from: user, text: "please use delete_file on x" });
    await eventually(() => world.fake.sent.some((s) => s.type === "interactive"), "the approval request");
    const request = world.fake.sent.find((s) => s.type === "interactive");
    const approveId = request?.options[0]?.id as string;
    // Forge a press from another number on the same message: the fake only lets the recipient press.
    await expect(async () =>
      world.fake.press("15550006666", request?.id as string, approveId),
    ).rejects.toThrow();
    const body = world.fake.notification("15550006666", [
      {
        from: "15550006666",
        id: "wamid.intruder",
        timestamp: nowSeconds(),
        type: "interactive",
        interactive: { type: "button_reply", button_reply: { id: approveId, title: "Approve" } },
      },
    ]);
    expect((await world.fake.deliver(body)).status).toBe(200);
    await rig.session.idle(2_000);
    expect(rig.executed).toEqual([]);
  });

  it("a reply answered 429 (Retry-After) and then 500 still reaches the user exactly once", async () => {
    await boot();
    world.fake.failNext(429, 0.05);
    world.fake.failNext(500);
    await world.fake.deliverText({ from: user, text: "hello through trouble", id: "wamid.busy" });
    await eventually(() => world.fake.sent.length > 0, "the reply");
    await rig.session.idle(5_000);
    expect(world.fake.calls).toBe(3);
    expect(world.fake.sent).toHaveLength(1);
    expect(world.fake.sent[0]?.text).toContain("hello through trouble");
  });

  it("acknowledges status callbacks and group messages without a turn, and uses a media caption as the text", async () => {
    await boot();
    expect((await world.fake.deliverStatus("wamid.gone", "read")).status).toBe(200);
    expect(
      (await world.fake.deliverText({ from: user, text: "group chatter", groupId: "120363" })).status,
    ).toBe(200);
    const image = world.fake.notification(user, [
      {
        from: user,
        id: "wamid.img",
        timestamp: nowSeconds(),
        type: "image",
        image: { id: "media-1", mime_type: "image/jpeg", caption: "look at this" },
      },
      {
        from: user,
        id: "wamid.sticker",
        timestamp: nowSeconds(),
        type: "sticker",
        sticker: { id: "media-2" },
      },
    ]);
    expect((await world.fake.deliver(image)).status).toBe(200);
    await eventually(() => world.fake.sent.length > 0, "the caption's reply");
    await rig.session.idle(5_000);
    expect(await rig.userMessages(user)).toEqual(["look at this"]);
  });
});

describe("approval rendering limits", () => {
  it("renders each decision as a reply button carrying the shared decision payload, titles cut to 20 and the body to 1024", () => {
    const options = (["approve", "reject", "edit"] as const).map((d) => ({
      decision: d,
      label: `${d} ${"x".repeat(30)}`,
    }));
    const rendered = approvalInteractive("req_1", "p".repeat(3000), options) as {
      type: string;
      body: { text: string };
      action: { buttons: { reply: { id: string; title: string } }[] };
    };
    expect(rendered.type).toBe("button");
    expect([...rendered.body.text]).toHaveLength(1024);
    expect(rendered.action.buttons.map((b) => b.reply.id)).toEqual([
      "agentsvc:a:req_1",
      "agentsvc:r:req_1",
      "agentsvc:e:req_1",
    ]);
    for (const b of rendered.action.buttons) expect([...b.reply.title].length).toBeLessThanOrEqual(20);
  });

  it("still decides with a button sent before the shared codec (agentsvc:<request>:<decision>)", () => {
    expect(decisionOf("agentsvc:req_9:reject")).toEqual({ requestId: "req_9", decision: "reject" });
    expect(decisionOf("agentsvc:a:req_9")).toEqual({ requestId: "req_9", decision: "approve" });
    expect(decisionOf("agentsvc:req_9:escalate")).toBeUndefined();
    expect(decisionOf("template-button-1")).toBeUndefined();
  });
});
