import type { InteractionRequest } from "@agentsvc/adapter-kit";
import { describe, expect, it } from "vitest";
import { createCliGateway } from "../src/index.js";
import { eventually, terminal } from "./helpers.js";

function request(
  id: string,
  allowed: InteractionRequest["allowedDecisions"] = ["approve", "reject"],
): InteractionRequest {
  return {
    requestId: id,
    threadId: "thr_1",
    gateway: "cli",
    thread: "thr_1",
    allowedDecisions: allowed,
    toolName: "delete_file",
    arguments: { path: "notes.txt" },
    prompt: "unused by the cli",
    createdAt: Date.now(),
  };
}

async function started() {
  const term = terminal();
  const gateway = createCliGateway({ input: term.input, output: term.output });
  await gateway.start(term.context);
  return { term, gateway };
}

describe("cli approval prompt", () => {
  it("shows the tool, its arguments and the A/R/Q choices", async () => {
    const { term, gateway } = await started();
    await gateway.requestDecision(request("req_1"));
    await eventually(() => term.text().includes(" > "), "the prompt shows  > ");
    expect(term.text()).toContain("Tool: delete_file");
    expect(term.text()).toContain('Arguments: {"path":"notes.txt"}');
    expect(term.text()).toContain("[A]pprove, [R]eject, [Q]uit (reject and cancel the run) > ");
    await gateway.stop();
  });

  it("reports A as approve, decided by the cli entry", async () => {
    const { term, gateway } = await started();
    await gateway.requestDecision(request("req_a"));
    term.input.write("a\n");
    await eventually(() => term.decisions.length === 1, "1 decision(s)");
    expect(term.decisions[0]).toEqual({
      requestId: "req_a",
      decision: { decision: "approve" },
      decidedBy: "cli:cli",
    });
    await gateway.stop();
  });

  it("asks R for a reason and reports a rejection with it", async () => {
    const { term, gateway } = await started();
    await gateway.requestDecision(request("req_r"));
    term.input.write("R\n");
    await eventually(
      () => term.text().includes("Reason (optional) > "),
      "the prompt shows Reason (optional) > ",
    );
    expect(term.decisions).toHaveLength(0);
    term.input.write("too risky\n");
    await eventually(() => term.decisions.length === 1, "1 decision(s)");
    expect(term.decisions[0]?.decision).toEqual({ decision: "reject", reason: "too risky" });
    await gateway.stop();
  });

  it("reports Q as a rejection that also cancels the run", async () => {
    const { term, gateway } = await started();
    await gateway.requestDecision(request("req_q"));
    term.input.write("Q\n");
    await eventually(() => term.decisions.length === 1, "1 decision(s)");
    expect(term.decisions[0]?.decision).toMatchObject({ decision: "reject", cancelRun: true });
    await gateway.stop();
  });

  it("asks again after an answer that is not a choice", async () => {
    const { term, gateway } = await started();
    await gateway.requestDecision(request("req_x"));
    term.input.write("maybe\n");
    await eventually(
      () => term.text().includes("Please answer A, R, Q."),
      "the prompt shows Please answer A, R, Q.",
    );
    expect(term.decisions).toHaveLength(0);
    term.input.write("a\n");
    await eventually(() => term.decisions.length === 1, "1 decision(s)");
    await gateway.stop();
  });

  it("prompts one request at a time, in order", async () => {
    const { term, gateway } = await started();
    await gateway.requestDecision(request("req_first"));
    await gateway.requestDecision(request("req_second"));
    await eventually(() => term.text().includes("req_first"), "the prompt shows req_first");
    expect(term.text()).not.toContain("req_second");
    term.input.write("a\nr\n\n");
    await eventually(() => term.decisions.length === 2, "2 decision(s)");
    expect(term.decisions.map((d) => [d.requestId, d.decision.decision])).toEqual([
      ["req_first", "approve"],
      ["req_second", "reject"],
    ]);
    await gateway.stop();
  });

  it("offers only the choices the request allows", async () => {
    const { term, gateway } = await started();
    await gateway.requestDecision(request("req_only", ["approve"]));
    await eventually(() => term.text().includes(" > "), "the prompt shows  > ");
    expect(term.text()).toContain("[A]pprove > ");
    term.input.write("r\n");
    await eventually(() => term.text().includes("Please answer A."), "the prompt shows Please answer A.");
    await gateway.stop();
  });

  it("leaves the request pending with a warning when input ends", async () => {
    const { term, gateway } = await started();
    await gateway.requestDecision(request("req_eof"));
    term.input.end();
    await gateway.settled();
    expect(term.decisions).toHaveLength(0);
    expect(term.warnings.join("")).toContain("input ended before an answer");
  });
});
