// /batch when the beforeTurn hook refuses a turn: refused before anything ran, the answer is that
// error itself; refused after a turn ran, the batch answers 200 with the finished turn kept.
import { AgentsvcError, defineAgent, RunManager } from "@agentsvc/agent-core";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { agentRoutes } from "../src/index.js";
import { listen, postJson } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A route whose beforeTurn refuses (403) every turn from the `refuseFrom`-th on (1-based). */
async function batchUrl(refuseFrom: number): Promise<string> {
  const runs = new RunManager({ agent: defineAgent({ name: "h", model: { provider: "demo" } }) });
  let turns = 0;
  const app = new Hono();
  app.route(
    "/agent",
    agentRoutes({
      runs,
      beforeTurn: () => {
        turns += 1;
        if (turns >= refuseFrom) throw new AgentsvcError("forbidden", "over the quota", 403);
      },
    }),
  );
  const server = await listen(app);
  closers.push(server.close);
  return `${server.url}/agent/batch`;
}

describe("POST /batch with a refused turn", () => {
  it("answers the refusal itself (403) when the first turn is refused", async () => {
    const response = await postJson(await batchUrl(1), { inputs: ["one", "two"] });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      success: false,
      error: { code: "forbidden", message: "over the quota" },
    });
  });

  it("keeps the finished first turn and marks the refused one failed and the rest skipped", async () => {
    const response = await postJson(await batchUrl(2), { inputs: ["one", "two", "three"] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: { status: string; error?: { code: string } }[] };
    expect(body.results.map((r) => r.status)).toEqual(["completed", "failed", "skipped"]);
    expect(body.results[1]?.error).toMatchObject({ code: "forbidden" });
  });
});
