// A gateway's streaming half over its stream.ts: the Gateway contract's `stream` and `finishDraft`
// are the same two forwarding calls in every adapter that streams, so they are made here.
import type { DraftIds, ReplyStream, SendOptions, SendResult, StreamOptions } from "./gateway.js";

/** What an adapter's stream.ts holds: a preview per reply, and the final message made over one. */
export interface DraftStreams {
  open(thread: string, options: StreamOptions): ReplyStream | undefined;
  finish(thread: string, draft: DraftIds, text: string, options: SendOptions): Promise<SendResult>;
}

/** The gateway's `stream`: a preview from `streams` (a gateway field: `readonly stream = streamOf(...)`). */
export function streamOf<S extends ReplyStream | undefined>(streams: {
  open(thread: string, options: StreamOptions): S;
}): (thread: string, options: StreamOptions) => S {
  return (thread, options) => streams.open(thread, options);
}

/**
 * The gateway's `finishDraft`: the final message made over a preview by `streams`.
 * `beforeFinish(thread)` runs first (a typing indicator stopped).
 */
export function finishDraftOf(
  streams: DraftStreams,
  beforeFinish?: (thread: string) => void,
): (thread: string, draft: DraftIds, text: string, options: SendOptions) => Promise<SendResult> {
  return (thread, draft, text, options) => {
    beforeFinish?.(thread);
    return streams.finish(thread, draft, text, options);
  };
}
