// The card's click payload is session-core's decision codec; cards sent by the version before the
// codec ({ requestId, decision }) still decide, for approve and reject only.
import { describe, expect, it } from "vitest";
import { approvalCard, clickedDecision, DECIDE_VERB } from "../src/approval-card.js";

const execute = (data: unknown, verb = DECIDE_VERB) => ({ action: { type: "Action.Execute", verb, data } });

describe("approval card clicks", () => {
  it("reads the codec payload the card carries, with no action for edit", () => {
    const card = approvalCard("req_abc", "Run it?", ["approve", "edit", "reject"]) as {
      attachments: { content: { actions: { title: string; data: unknown }[] } }[];
    };
    const actions = card.attachments[0]?.content.actions ?? [];
    expect(actions.map((a) => a.title)).toEqual(["Approve", "Reject"]);
    expect(actions.map((a) => clickedDecision(execute(a.data)))).toEqual([
      { requestId: "req_abc", decision: "approve" },
      { requestId: "req_abc", decision: "reject" },
    ]);
  });

  it("still reads a card sent before the codec, and an Action.Submit value", () => {
    expect(clickedDecision(execute({ requestId: "req_old", decision: "approve" }))).toEqual({
      requestId: "req_old",
      decision: "approve",
    });
    expect(clickedDecision({ decision: "agentsvc:r:req_x" })).toEqual({
      requestId: "req_x",
      decision: "reject",
    });
  });

  it("refuses another verb, an unknown decision and a payload it did not make", () => {
    expect(clickedDecision(execute({ decision: "agentsvc:a:req_x" }, "other.verb"))).toBeUndefined();
    expect(clickedDecision(execute({ requestId: "req_old", decision: "edit" }))).toBeUndefined();
    expect(clickedDecision(execute({ decision: "agentsvc:z:req_x" }))).toBeUndefined();
  });
});
