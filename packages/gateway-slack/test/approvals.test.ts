// Approvals as Block Kit buttons: block_actions become the decision (only the participant's),
// and the message is updated with the outcome afterwards.
import { encodeDecision } from "@agentsvc/adapter-kit";
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually } from "@agentsvc/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { markdownToMrkdwn } from "../src/index.js";
import { type SlackHarness, slackHarness } from "./harness.js";

let h: SlackHarness;
let rig: ContractRig;

beforeEach(async () => {
  h = await slackHarness();
  rig = new ContractRig(h);
  await rig.start();
});

afterEach(async () => {
  await rig.stop();
  await h.close?.();
});

describe("slack approvals and formatting", () => {
  it("renders Approve/Reject buttons, refuses a stranger, applies the participant's press and updates the message", async () => {
    await h.inject?.({ id: "ap1", thread: "D0001", text: "please use delete_file ap1", author: "user-1" });
    await eventually(
      () => rig.session.snapshot("slack", "D0001").pendingRequestId !== undefined,
      "the request",
    );
    const requestId = rig.session.snapshot("slack", "D0001").pendingRequestId as string;
    await eventually(() => h.fake.workspace.botMessages.some((m) => m.blocks), "the card");
    const card = h.fake.workspace.botMessages.find(
      (m) => m.blocks,
    ) as (typeof h.fake.workspace.botMessages)[number];
    const buttons = card.blocks?.flatMap((b) => b.elements ?? []) as { action_id: string; value: string }[];
    // The values are the session's decision codec (Slack allows 2 000 characters in a value).
    expect(buttons.map((b) => [b.action_id, b.value])).toEqual([
      ["agentsvc_approve", encodeDecision(requestId, "approve")],
      ["agentsvc_reject", encodeDecision(requestId, "reject")],
    ]);
    expect(buttons.every((b) => b.value.length <= 2_000)).toBe(true);
    const approve = encodeDecision(requestId, "approve");
    await h.fake.workspace.press({ value: approve, user: "U9999" });
    expect((await rig.session.interaction(requestId))?.status).toBe("open");
    await h.fake.workspace.press({ value: approve, user: h.userId("user-1") });
    await eventually(() => rig.executed.some((n) => n.includes("ap1")), "the tool running");
    await eventually(() => card.updates > 0, "the updated card");
    expect(JSON.stringify(card.blocks)).toContain(`Approved by <@${h.userId("user-1")}>`);
    expect(JSON.stringify(card.blocks)).not.toContain("agentsvc_approve");
  });

  it("escapes &, < and > and maps markdown to mrkdwn", () => {
    expect(markdownToMrkdwn("**a** < b && [x](https://e.test) `<code>`")).toBe(
      "*a* &lt; b &amp;&amp; <https://e.test|x> `&lt;code&gt;`",
    );
  });
});
