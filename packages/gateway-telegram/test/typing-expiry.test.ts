// Typing for a turn that ends without sending anything (no reply ever clears it): the beat that finds
// it expired forgets the chat, so the map of chats typing does not keep every such chat for good.
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import type { TelegramGateway } from "../src/index.js";
import { type TelegramHarness, telegramHarness } from "./harness.js";

let h: TelegramHarness | undefined;
let rig: ContractRig | undefined;

afterEach(async () => {
  await rig?.stop();
  await h?.close?.();
  rig = undefined;
  h = undefined;
});

describe("telegram typing that expires without a reply", () => {
  it("is forgotten by the beat that finds it expired, and no typing task for the chat is left", async () => {
    h = await telegramHarness({ typingIntervalMs: 20, typingMaxMs: 150 });
    rig = new ContractRig(h);
    await rig.start();
    const gateway = rig.gateway as TelegramGateway;
    const typing = () => h?.fake.chat.chatActions.filter((a) => a.chatId === 102).length ?? 0;
    await gateway.startTyping("102");
    expect(gateway.typingThreadCount).toBe(1);
    // The first beat goes out within startTyping (repeats depend on the machine's pace, so not asserted).
    expect(typing()).toBe(1);
    await eventually(() => gateway.typingThreadCount === 0, "the expired chat forgotten", 10_000);
    // The beat stopped with it: nothing is scheduled that could send typing to the chat again.
    expect(rig.session.scheduler.list().filter((t) => t.name.includes("typing:"))).toEqual([]);
    expect(h.fake.chat.botMessages).toEqual([]);
  });
});
