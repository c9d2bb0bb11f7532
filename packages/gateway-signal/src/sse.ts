// A Server-Sent Events reader for the daemon's events stream: fields `event` and `data`, a blank
// line ends an event, a line starting with `:` is a comment (the daemon's keepalive). An `id` line
// is ignored: signal-cli sends none and keeps no history to resume from (its HttpServerHandler
// writes every event with a null id and ignores Last-Event-ID), so a reconnect cannot ask for what
// it missed; `--receive-mode=on-connection` is what keeps messages waiting (see the README).

export interface SseEvent {
  event: string;
  data: string;
}

export interface SseHandlers {
  /** Any bytes arrived (events and keepalives alike): the idle watchdog's heartbeat. */
  activity(): void;
  /** One complete event; the next one is read only after this resolves, so events stay in order. */
  event(event: SseEvent): Promise<void>;
}

/** Reads `body` to its end (or until it throws on abort). */
export async function readSse(body: ReadableStream<Uint8Array>, handlers: SseHandlers): Promise<void> {
  const decoder = new TextDecoder();
  let pending = "";
  let event = "";
  let data: string[] = [];
  for await (const chunk of body) {
    handlers.activity();
    pending += decoder.decode(chunk, { stream: true });
    let newline = pending.search(/\r\n|\r|\n/);
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(
        pending[newline] === "\r" && pending[newline + 1] === "\n" ? newline + 2 : newline + 1,
      );
      newline = pending.search(/\r\n|\r|\n/);
      if (line === "") {
        if (data.length > 0) await handlers.event({ event: event || "message", data: data.join("\n") });
        event = "";
        data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
  }
}
