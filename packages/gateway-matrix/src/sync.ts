// The /sync long-poll (https://spec.matrix.org/latest/client-server-api/#get_matrixclientv3sync) on the
// kit's PollLoop. A sync answers a batch and one `next_batch` for all of it, so each event's position
// is the batch's `since` (a failure re-reads the batch; event ids deduplicate) and a closing item
// moves to `next_batch`. Without a stored position the first sync (timeout 0) only takes the current
// position: a new bot does not answer a room's history.
import { type GatewayContext, type PlatformApi, PollLoop, type PollLoopOptions } from "@agentsvc/adapter-kit";

export const SINCE_KEY = "since";

/** What the bot reads: room messages and reactions in joined rooms, nothing else (#filtering). */
const FILTER = JSON.stringify({
  presence: { not_types: ["*"] },
  account_data: { not_types: ["*"] },
  room: {
    timeline: { types: ["m.room.message", "m.reaction"], limit: 50 },
    state: { not_types: ["*"] },
    ephemeral: { not_types: ["*"] },
    account_data: { not_types: ["*"] },
  },
});

/** A room event as /sync gives it (ClientEventWithoutRoomID). */
export interface SyncEvent {
  event_id: string;
  type: string;
  sender: string;
  content: Record<string, unknown>;
}

interface SyncBody {
  next_batch: string;
  rooms?: {
    join?: Record<
      string,
      { summary?: { "m.joined_member_count"?: number }; timeline?: { events?: SyncEvent[] } }
    >;
  };
}

export type SyncItem =
  | { kind: "event"; roomId: string; members: number | undefined; event: SyncEvent; position: string }
  | { kind: "end"; position: string };

/** /sync's `timeout` and the grace on top of it; the rest goes to the PollLoop as is. */
export interface SyncOptions
  extends Pick<PollLoopOptions<SyncItem, string>, "envVar" | "backoff" | "deafAfterMs"> {
  pollTimeoutMs: number;
  graceMs: number;
}

export function matrixPoller(
  api: PlatformApi,
  ctx: GatewayContext,
  o: SyncOptions,
  identify: (signal: AbortSignal) => Promise<void>,
  deliver: (item: Extract<SyncItem, { kind: "event" }>, signal: AbortSignal) => Promise<void>,
) {
  const loop = new PollLoop<SyncItem, string>({
    ctx,
    envVar: o.envVar,
    call: "sync",
    cursorKey: SINCE_KEY,
    fetch: async (since, signal) => {
      await identify(signal);
      const q = new URLSearchParams({ filter: FILTER, timeout: String(since ? o.pollTimeoutMs : 0) });
      if (since) q.set("since", since);
      const body = await api.call<SyncBody>("sync", "GET", `/sync?${q}`, {
        signal,
        timeoutMs: o.pollTimeoutMs + o.graceMs,
      });
      const items: SyncItem[] = [];
      if (since) {
        for (const [roomId, room] of Object.entries(body.rooms?.join ?? {})) {
          const members = room.summary?.["m.joined_member_count"];
          for (const event of room.timeline?.events ?? [])
            items.push({ kind: "event", roomId, members, event, position: since });
        }
      }
      items.push({ kind: "end", position: body.next_batch });
      return items;
    },
    positionAfter: (item) => item.position,
    deliver: (item, signal) => (item.kind === "event" ? deliver(item, signal) : Promise.resolve()),
    itemId: (item) => (item.kind === "event" ? item.event.event_id : `end ${item.position}`),
    ...(o.backoff ? { backoff: o.backoff } : {}),
    ...(o.deafAfterMs !== undefined ? { deafAfterMs: o.deafAfterMs } : {}),
  });
  return (signal: AbortSignal) => loop.poll(signal);
}
