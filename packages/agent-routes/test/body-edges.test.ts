// Bodies at the edges the other body tests leave out: no Content-Type at all, an empty body on the
// in-process (fetch Request) path, and readJsonObject's exported helpers' defaults (#44).
import { defineAgent, RunManager } from "@agentsvc/agent-core";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { agentRoutes, conversationIdOf } from "../src/index.js";

function routes() {
  const runs = new RunManager({ agent: defineAgent({ name: "h", model: { provider: "demo" } }) });
  const app = new Hono();
  app.route("/agent", agentRoutes({ runs }));
  return app;
}

async function refusal(response: Response) {
  return {
    status: response.status,
    ...((await response.json()) as { error: { code: string; message: string } }).error,
  };
}

describe("bodies at the edges", () => {
  it("a POST without Content-Type is 415 and says it got nothing", async () => {
    const response = await routes().request("/agent/invoke", { method: "POST", body: '{"input":"hi"}' });
    // fetch adds text/plain for a string body; a Request built with a stream body has none.
    expect(await refusal(response)).toMatchObject({ status: 415, code: "unsupported_media_type" });
    const bare = await routes().request(
      new Request("http://127.0.0.1/agent/invoke", {
        method: "POST",
        body: new Blob(['{"input":"hi"}']).stream(),
        duplex: "half",
      } as RequestInit),
    );
    expect(await refusal(bare)).toEqual({
      status: 415,
      code: "unsupported_media_type",
      message: "Content-Type: expected application/json (got nothing)",
    });
  });

  it("an empty JSON POST is 400 invalid_json, not a server error", async () => {
    const response = await routes().request("/agent/invoke", {
      method: "POST",
      headers: { "content-type": "application/json" },
    });
    expect(await refusal(response)).toMatchObject({ status: 400, code: "invalid_json" });
  });

  it("conversationIdOf falls back to the default conversation, as the README says", () => {
    expect(conversationIdOf({})).toBe("default");
    expect(conversationIdOf({ conversationId: null }, "u:me")).toBe("u:me");
    expect(conversationIdOf({ conversationId: "work" })).toBe("work");
  });
});
