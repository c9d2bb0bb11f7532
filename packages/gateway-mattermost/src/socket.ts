// /api/v4/websocket (https://developers.mattermost.com/integrate/reference/websocket/) on the kit's
// SocketLoop. Up: the `authentication_challenge` (seq 1) answered OK. A reconnect naming the
// `connection_id` (from `hello`, seq 0 of a new connection) and the next `sequence_number` gets what
// that connection missed, with no new `hello` (Mattermost's client, webapp/platform/client/src/websocket.ts;
// reliable websockets, MM-32950). The position moves only after the session recorded an event and is
// kept in state; a `ping` action after each event tells the server the client read past it.
import { type BackoffOptions, type GatewayContext, SocketLoop, type SocketSend } from "@agentsvc/adapter-kit";

export const POSITION_KEY = "position";

type Frame = {
  event?: string;
  data?: Record<string, unknown>;
  seq?: number;
  status?: string;
  seq_reply?: number;
};
type Event = Required<Pick<Frame, "event" | "data" | "seq">>;

export interface SocketOptions {
  serverUrl: string;
  /** The bot's access token, named by `envVar`. */
  auth: { token: string; envVar: string };
  backoff?: BackoffOptions;
  /** Runs before each connect (the bot's identity); a 401 stops the gateway, anything else retries. */
  identify(signal: AbortSignal): Promise<void>;
  /** Handles one event; resolve = recorded, throw = not (the socket resumes at it). */
  onEvent(event: string, data: Record<string, unknown>): Promise<void>;
}

/** Starts the socket; `action` sends a client action (`user_typing`) on it, false when none is open. */
export async function mattermostSocket(ctx: GatewayContext, o: SocketOptions) {
  let position = await ctx.state.get<{ connectionId: string; seq: number }>(POSITION_KEY);
  let actionSeq = 0;
  const act = (send: SocketSend, action: string, data?: Record<string, unknown>) =>
    send({ action, seq: ++actionSeq, ...(data ? { data } : {}) });
  const base = `${o.serverUrl.replace(/^http/, "ws").replace(/\/+$/, "")}/api/v4/websocket`;
  const loop = new SocketLoop<Event>({
    ctx,
    connection: "the Mattermost WebSocket",
    envVar: o.auth.envVar,
    ...(o.backoff ? { backoff: o.backoff } : {}),
    url: async (signal) => {
      await o.identify(signal);
      return position
        ? `${base}?connection_id=${position.connectionId}&sequence_number=${position.seq}`
        : base;
    },
    opened: (send) => {
      actionSeq = 0; // per connection
      act(send, "authentication_challenge", { token: o.auth.token });
    },
    read: (raw) => {
      const f = raw as Frame;
      if (f.seq_reply !== undefined) {
        if (f.seq_reply !== 1) return undefined;
        return f.status === "OK" ? { up: true } : { rejected: "the authentication_challenge was refused" };
      }
      if (f.event === "hello") {
        const id = String(f.data?.connection_id ?? "");
        if (id && id !== position?.connectionId) position = { connectionId: id, seq: (f.seq ?? 0) + 1 };
        return undefined;
      }
      if (!f.event || typeof f.seq !== "number") return undefined;
      return { event: { event: f.event, data: f.data ?? {}, seq: f.seq } };
    },
    handle: async (e, send) => {
      await o.onEvent(e.event, e.data);
      if (position && e.seq >= position.seq) {
        position.seq = e.seq + 1;
        await ctx.state.set(POSITION_KEY, position);
      }
      act(send, "ping");
    },
  });
  loop.start();
  return {
    stop: () => loop.stop(),
    action: (action: string, data: Record<string, unknown>) => act(loop.send, action, data),
  };
}
