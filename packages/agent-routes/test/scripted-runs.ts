// A RunManagerApi whose every turn ends as the test says: the routes' side of the TurnResult
// contract (typed error, finishReason, usage) checked independently of which model produced it.
import type { RunHandle, RunManagerApi, StartRunInput, TurnResult } from "@agentsvc/agent-core";

export type Ending = Partial<Pick<TurnResult, "status" | "text" | "error" | "finishReason" | "usage">>;

/** Turns end with `endings` in order (the last one repeats); each streams its text as one chunk. */
export function scriptedRuns(endings: Ending[]): RunManagerApi {
  let n = 0;
  const start = (input: StartRunInput): RunHandle => {
    const ending = endings[Math.min(n++, endings.length - 1)] ?? {};
    const threadId = input.threadId ?? `thr_scripted${n}`;
    const result: TurnResult = {
      threadId,
      status: ending.status ?? "completed",
      text: ending.text ?? "",
      reasoning: "",
      toolCalls: [],
      newMessages: [],
      ...(ending.error ? { error: ending.error } : {}),
      ...(ending.finishReason ? { finishReason: ending.finishReason } : {}),
      ...(ending.usage ? { usage: ending.usage } : {}),
    };
    return {
      threadId,
      options: { threadId, userId: input.userId, conversationId: input.conversationId },
      status: result.status,
      done: Promise.resolve(result),
      async *events() {
        yield {
          seq: 1,
          chunk: {
            id: "chatcmpl-scripted",
            object: "chat.completion.chunk",
            created: 1,
            model: "scripted",
            choices: [{ index: 0, delta: { content: result.text }, finish_reason: null }],
          },
        };
      },
    };
  };
  return {
    start,
    get: () => undefined,
    cancel: () => false,
    steer: () => false,
    resume: () => Promise.reject(new Error("not scripted")),
    pending: async () => undefined,
    onSuspended: () => () => {},
    drain: async () => {},
  };
}
