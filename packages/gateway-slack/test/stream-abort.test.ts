// A preview update the session gave up on (its AbortSignal fired) is not a refusal of Slack's
// stream methods: the reply stays a native stream and the next update starts it again, instead of
// falling back to chat.postMessage + chat.update for the rest of the reply.
import { GatewaySendError } from "@agentsvc/adapter-kit";
import { describe, expect, it } from "vitest";
import { SlackStreams } from "../src/stream.js";

function recordingApi(refuse: (method: string, signal?: AbortSignal) => Error | undefined) {
  const calls: string[] = [];
  const api = {
    call: async (method: string, _params: Record<string, unknown>, signal?: AbortSignal) => {
      calls.push(method);
      const error = refuse(method, signal);
      if (error) throw error;
      return { ok: true, ts: "1700000000.000100" };
    },
    send: async () => {
      calls.push("chat.postMessage");
      return { messageId: "1700000000.000200" };
    },
    answered: () => undefined,
  };
  return { api, calls };
}

describe("slack: a streamed preview update that was aborted", () => {
  it("leaves the reply a stream: the next update calls chat.startStream again, never chat.postMessage", async () => {
    // The session gives up while chat.startStream is in flight; as fetch does, the request then
    // rejects with the abort's reason.
    const gaveUp = new AbortController();
    const { api, calls } = recordingApi((method, signal) => {
      if (method !== "chat.startStream" || signal !== gaveUp.signal) return undefined;
      gaveUp.abort(new Error("the session gave up on this update"));
      return signal.reason as Error;
    });
    const stream = new SlackStreams(api).open("C1:1700000000.000001", {});
    await expect(stream.update("Hel", gaveUp.signal)).rejects.toThrow(/gave up/);
    expect(await stream.update("Hello")).toEqual({ ts: "1700000000.000100", mode: "stream" });
    await stream.update("Hello there");
    expect(calls).toEqual(["chat.startStream", "chat.startStream", "chat.appendStream"]);
  });

  it("whereas a workspace refusing chat.startStream gets postMessage and updates from then on", async () => {
    const { api, calls } = recordingApi((method) =>
      method === "chat.startStream"
        ? new GatewaySendError("not_allowed_token_type", { permanent: true })
        : undefined,
    );
    const stream = new SlackStreams(api).open("C1:1700000000.000001", {});
    expect(await stream.update("Hel")).toEqual({ ts: "1700000000.000200", mode: "post" });
    await stream.update("Hello");
    expect(calls).toEqual(["chat.startStream", "chat.postMessage", "chat.update"]);
  });
});
