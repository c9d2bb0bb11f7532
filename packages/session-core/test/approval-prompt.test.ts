// What an approval request says: buttons need no typed-reply instructions, and a text platform is
// never told about a decision it cannot send (edit needs replacement arguments).
import { afterEach, describe, expect, it } from "vitest";
import { type Rig, removeDir, rig, until } from "./session-harness.js";

const T = "room-9";
let current: Rig | undefined;
afterEach(async () => {
  if (current) {
    await current.close();
    removeDir(current.dir);
    current = undefined;
  }
});

describe("the approval request's text", () => {
  it("on a platform with buttons names the tool and arguments without typed-reply instructions", async () => {
    current = await rig();
    await current.gateway.inject({ thread: T, text: "use delete_file report.txt" });
    await until(() => (current?.gateway.decisionRequests.length ?? 0) > 0, "the decision request");
    const req = current.gateway.decisionRequests[0]!;
    expect(req.allowedDecisions).toContain("approve");
    expect(req.prompt).toContain('"delete_file"');
    expect(req.prompt).toContain('"note": "use delete_file report.txt"');
    expect(req.prompt).not.toMatch(/Reply with/i);
    expect(req.prompt).not.toMatch(/^- (approve|reject|edit)/m);
  });

  it("on a text platform lists the typed replies and never an edit it cannot send", async () => {
    current = await rig({ gateway: { capabilities: { interactiveActions: false } } });
    await current.gateway.inject({ thread: T, text: "use delete_file report.txt" });
    await until(
      () => (current?.gateway.textsTo(T) ?? []).some((t) => t.startsWith("Approval needed")),
      "the text request",
    );
    const text = current.gateway.textsTo(T).find((t) => t.startsWith("Approval needed")) ?? "";
    expect(text).toMatch(/^- approve/m);
    expect(text).toMatch(/^- reject/m);
    expect(text).not.toContain("edit");
  });
});
