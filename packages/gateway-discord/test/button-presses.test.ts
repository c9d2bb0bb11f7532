// What a press on an approval card answers through the interaction callback
// (https://discord.com/developers/docs/interactions/receiving-and-responding#responding-to-an-interaction):
// type 7 (UPDATE_MESSAGE) with the card's prompt above the outcome and no buttons left; a refusal is
// type 4 with flags 64 (EPHEMERAL) saying why; an interaction that is not a component press
// (https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-interaction-type)
// decides nothing even when its custom_id reads like a button's.
import { encodeDecision } from "@agentsvc/adapter-kit";
import { eventually, within } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { CHANNELS } from "./harness.js";
import { pendingCard, type Rigged, startRig, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

/** A press on `card`'s button and the callback Discord received for it. */
async function press(x: Rigged, cardId: string, customId: string, userId: string) {
  const { interactionId } = x.h.fake.sessions.press({ messageId: cardId, customId, userId });
  await eventually(() => x.h.fake.rest.callbacks.get(interactionId) !== undefined, "the callback", 3_000);
  return x.h.fake.rest.callbacks.get(interactionId);
}

/**
 * An INTERACTION_CREATE of `type` from the requester in a DM (the user in `user`, no `member`),
 * carrying `customId` in its data as a component press (3) or a modal submit (5) does.
 */
function interaction(x: Rigged, type: number, customId: string) {
  const id = x.h.fake.nextId();
  const seq = x.h.fake.sessions.replay({
    t: "INTERACTION_CREATE",
    d: {
      id,
      application_id: x.h.fake.botUserId,
      type,
      token: `itoken-${id}`,
      version: 1,
      channel_id: CHANNELS[0],
      user: { id: x.h.userId("user-1"), username: "user0001" },
      data: { custom_id: customId, ...(type === 3 ? { component_type: 2 } : { components: [] }) },
    },
  });
  return { id, seq };
}

/** The reason the gateway logged for ignoring interaction `id`. */
const ignoredBecause = (x: Rigged, id: string) =>
  x.h.logs.find((l) => l.msg === "ignored" && l.interactionId === id)?.reason;

describe("discord button presses", () => {
  it("the requester's press updates the card in place: its prompt, a blank line, the outcome naming them, no buttons", async () => {
    r = await startRig();
    const { requestId, card } = await pendingCard(r, "bp1");
    const prompt = card.content;
    const user = r.h.userId("user-1");
    const answer = await press(r, card.id, encodeDecision(requestId, "approve"), user);
    expect(answer).toMatchObject({
      type: 7,
      data: { content: `${prompt}\n\n✅ Approved by <@${user}>`, components: [] },
    });
  });

  it("a press by someone who may not decide is answered to them alone with 'Not recorded' and the reason", async () => {
    r = await startRig();
    const { requestId, card } = await pendingCard(r, "bp2");
    const answer = await press(r, card.id, encodeDecision(requestId, "approve"), "123456789");
    expect(answer).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(String(answer?.data?.content)).toMatch(/^Not recorded: 123456789 may not decide/);
    expect(r.rig.session.snapshot("discord", CHANNELS[0]).pendingRequestId).toBe(requestId);
  });

  it("a modal submit (interaction type 5) whose custom_id is an approval payload decides nothing and is not answered", async () => {
    r = await startRig();
    const { requestId } = await pendingCard(r, "bp3");
    const { id, seq } = interaction(r, 5, encodeDecision(requestId, "approve"));
    await within(r.h.fake.sessions.acked(seq), 5_000, "the modal submit handled");
    expect(ignoredBecause(r, id)).toBe("interaction type 5");
    expect(r.h.fake.rest.callbacks.get(id)).toBeUndefined();
    expect(r.rig.session.snapshot("discord", CHANNELS[0]).pendingRequestId).toBe(requestId);
    expect(r.rig.executed).toEqual([]);
  });

  it("a custom_id that only contains a legacy payload (after a prefix, or with a second line) decides nothing", async () => {
    r = await startRig();
    const { requestId } = await pendingCard(r, "bp4");
    for (const customId of [`poll:agentsvc:approve:${requestId}`, `agentsvc:approve:${requestId}\nx`]) {
      const { id, seq } = interaction(r, 3, customId);
      await within(r.h.fake.sessions.acked(seq), 5_000, "the press handled");
      expect(ignoredBecause(r, id), customId).toBe("not an approval button of this gateway");
    }
    expect(r.rig.session.snapshot("discord", CHANNELS[0]).pendingRequestId).toBe(requestId);
  });
});
