// Streamed replies on Teams (https://learn.microsoft.com/microsoftteams/platform/bots/streaming-ux):
// in a one-on-one chat each update is a `typing` activity with a `streaminfo` entity (the first
// one's activity id becomes the streamId, streamSequence counts up from 1, the text always holds
// everything streamed before), and the reply's final piece is a `message` with streamType `final`
// that ends the stream. Group chats and channels cannot stream: they get the normal message.
// After a crash the stream's last sequence and content are unknown, so the restarted turn shows no
// more updates and only sends the final message that ends the left stream.
// Teams ends a stream not finished within two minutes and refuses what follows with 403
// `ContentStreamNotAllowed` "Content stream finished due to exceeded streaming time" (the page's
// error codes): the final text then goes out as a normal message, so the user keeps the whole reply.
import type { DraftIds, ReplyStream, SendOptions, SendResult, StreamOptions } from "@agentsvc/adapter-kit";
import { connectorRefusal } from "./api.js";

type Json = Record<string, unknown>;

export interface TeamsStreamApi {
  /** POSTs an activity to the conversation; the connector's activity id. `signal` aborts the request. */
  post(
    conversationId: string,
    meta: Record<string, unknown> | undefined,
    activity: Json,
    signal?: AbortSignal,
  ): Promise<string | undefined>;
}

export class TeamsStreams {
  constructor(private readonly api: TeamsStreamApi) {}

  open(thread: string, options: StreamOptions): ReplyStream | undefined {
    if (options.meta?.conversationType !== "personal") return undefined;
    const meta = options.meta;
    const left = typeof options.previous?.streamId === "string";
    let streamId: string | undefined;
    let sequence = 0;
    let shown = "";
    return {
      update: async (text, signal): Promise<DraftIds | undefined> => {
        if (left || (shown && !text.startsWith(shown))) return undefined;
        // Counted only once the connector took it: a refused first request is sent again as 1.
        const next = sequence + 1;
        const id = await this.api.post(
          thread,
          meta,
          {
            type: "typing",
            text,
            entities: [
              {
                type: "streaminfo",
                streamType: "streaming",
                streamSequence: next,
                ...(streamId ? { streamId } : {}),
              },
            ],
          },
          signal,
        );
        sequence = next;
        shown = text;
        if (streamId || !id) return undefined;
        streamId = id;
        return { streamId };
      },
    };
  }

  /** The final message ends the stream; it is the message the user keeps. */
  async finish(thread: string, draft: DraftIds, text: string, options: SendOptions): Promise<SendResult> {
    const streamId = String(draft.streamId);
    let id: string | undefined;
    try {
      id = await this.api.post(thread, options.meta, {
        type: "message",
        text,
        textFormat: "markdown",
        entities: [{ type: "streaminfo", streamId, streamType: "final" }],
      });
    } catch (err) {
      if (!streamTimedOut(err)) throw err;
      const sent = await this.api.post(thread, options.meta, {
        type: "message",
        text,
        textFormat: "markdown",
      });
      return sent ? { messageId: sent } : {};
    }
    return { messageId: id ?? streamId };
  }
}

/** Teams closed the stream at its two-minute limit; the message still can be sent, just not as the stream's end. */
function streamTimedOut(err: unknown): boolean {
  const refusal = connectorRefusal(err);
  return (
    refusal?.code === "ContentStreamNotAllowed" && /exceeded streaming time/i.test(refusal.message ?? "")
  );
}
