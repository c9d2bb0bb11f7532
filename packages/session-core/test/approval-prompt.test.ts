// What an approval request says: buttons need no typed-reply instructions, and a text platform is
// never told about a decision it cannot send (edit needs replacement arguments).
import { describe, expect, it } from "vitest";
import { until, useRig } from "./session-harness.js";

const T = "room-9";
const openRig = useRig();

describe("the approval request's text", () => {
  it("on a platform with buttons names the tool and arguments without typed-reply instructions", async () => {
    const r = await openRig();
    await r.gateway.inject({ thread: T, text: "use delete_file report.txt" });
    await until(() => r.gateway.decisionRequests.length > 0, "the decision request");
    const req = r.gateway.decisionRequests[0]!;
    expect(req.allowedDecisions).toContain("approve");
    expect(req.prompt).toContain('"delete_file"');
    expect(req.prompt).toContain('"note": "use delete_file report.txt"');
    expect(req.prompt).not.toMatch(/Reply with/i);
    expect(req.prompt).not.toMatch(/^- (approve|reject|edit)/m);
  });

  it("on a text platform lists the typed replies and never an edit it cannot send", async () => {
    const r = await openRig({ gateway: { capabilities: { interactiveActions: false } } });
    await r.gateway.inject({ thread: T, text: "use delete_file report.txt" });
    await until(() => r.gateway.textsTo(T).some((t) => t.startsWith("Approval needed")), "the text request");
    const text = r.gateway.textsTo(T).find((t) => t.startsWith("Approval needed")) ?? "";
    expect(text).toMatch(/^- approve/m);
    expect(text).toMatch(/^- reject/m);
    expect(text).not.toContain("edit");
  });
});
