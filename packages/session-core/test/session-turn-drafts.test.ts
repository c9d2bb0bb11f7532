// A streamed reply's draft at the end of its turn: the reply finishes the draft the preview made
// (one platform message, edited, not a second one), and a turn cut short mid-stream finishes it
// as what it said so far plus the "(stopped)" note (or, when the turn could not be saved, the
// failure note) instead of leaving it half-written.
import { describe, expect, it } from "vitest";
import { until, useRig } from "./session-harness.js";
import { refuseReplyRowOnce, streamed } from "./turn-harness.js";

const T = "t-drafts";
const SAID = "here is what I found so far";
const openRig = useRig();

describe("a streamed reply", () => {
  it("finishes the draft its preview made with the whole reply", async () => {
    const r = await openRig(streamed({ script: [{ text: SAID }] }));
    await r.gateway.inject({ thread: T, text: "tell me" });
    await r.session.idle();
    const updates = r.gateway.streamCalls.filter((c) => c.kind === "update");
    const finishes = r.gateway.streamCalls.filter((c) => c.kind === "finish");
    expect(updates.length).toBeGreaterThan(0);
    expect(finishes).toEqual([expect.objectContaining({ draft: updates[0]?.draft, text: SAID })]);
    expect(r.gateway.textsTo(T)).toEqual([SAID]);
  });

  it("cut short by a new message ends its draft as what it said plus (stopped)", async () => {
    const r = await openRig(
      streamed({
        gatewaySession: { policy: "interrupt" },
        script: [
          { text: SAID, toolCalls: [{ name: "wait_gate", arguments: { note: "g1" } }] },
          { text: "after the tool" },
        ],
      }),
    );
    await r.gateway.inject({ thread: T, text: "look it up" });
    await until(() => r.gates.calls.length === 1, "the turn at its gate");
    await until(
      () => r.gateway.streamCalls.some((c) => c.kind === "update" && c.text.trim() === SAID),
      "the preview showing what was said",
    );
    const draft = r.gateway.streamCalls[0]?.draft;
    await r.gateway.inject({ thread: T, text: "stop" });
    r.gates.openAll();
    await r.session.idle();
    const finishes = r.gateway.streamCalls.filter((c) => c.kind === "finish");
    expect(finishes[0]).toMatchObject({ draft, text: `${SAID}\n\n(stopped)` });
    // The cut-short turn never got to its second model call; the new message's run plays the
    // script from its start and says both parts.
    expect(r.gateway.textsTo(T)).toEqual([`${SAID}\n\n(stopped)`, `${SAID}\n\nafter the tool`]);
  });

  it("whose turn could not be saved ends its draft as what it said plus the failure note", async () => {
    const r = await openRig(streamed({ script: [{ text: SAID }] }));
    // The reply row written with the turn's messages is refused once: the turn is not saved.
    refuseReplyRowOnce(r);
    await r.gateway.inject({ thread: T, text: "tell me" });
    await r.session.idle();
    const draft = r.gateway.streamCalls.find((c) => c.kind === "update")?.draft;
    const finishes = r.gateway.streamCalls.filter((c) => c.kind === "finish");
    expect(finishes).toEqual([
      expect.objectContaining({
        draft,
        text: `${SAID}\n\nSorry, I could not answer this message (persist_failed).`,
      }),
    ]);
  });
});
