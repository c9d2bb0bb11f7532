// Streamed replies on Teams (https://learn.microsoft.com/microsoftteams/platform/bots/streaming-ux):
// in a one-on-one chat each update is a `typing` activity with a `streaminfo` entity (the first
// one's activity id becomes the streamId, streamSequence counts up from 1, the text always holds
// everything streamed before), and the reply's final piece is a `message` with streamType `final`
// that ends the stream. Group chats and channels cannot stream: they get the normal message.
// After a crash the stream's last sequence and content are unknown, so the restarted turn shows no
// more updates and only sends the final message that ends the left stream.
import type { DraftIds, ReplyStream, SendOptions, SendResult, StreamOptions } from "@agentsvc/session-core";

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
        sequence += 1;
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
                streamSequence: sequence,
                ...(streamId ? { streamId } : {}),
              },
            ],
          },
          signal,
        );
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
    const id = await this.api.post(thread, options.meta, {
      type: "message",
      text,
      textFormat: "markdown",
      entities: [{ type: "streaminfo", streamId, streamType: "final" }],
    });
    return { messageId: id ?? streamId };
  }
}
