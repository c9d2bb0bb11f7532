// A server-sent-events parser for a body read by hand (fetch + reader): the browser's EventSource
// cannot POST or send headers. Follows the WHATWG event-stream rules for lines and fields.

export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

export class SseParser {
  private buffer = "";
  private started = false;
  private eventName = "";
  private data: string[] = [];
  private lastId: string | undefined;

  /** Feeds decoded text; returns the events completed by it. */
  push(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    this.buffer += text;
    if (!this.started && this.buffer.length > 0) {
      this.started = true;
      if (this.buffer.startsWith("\uFEFF")) this.buffer = this.buffer.slice(1);
    }
    const eol = /\r\n|\r|\n/g;
    let from = 0;
    for (let m = eol.exec(this.buffer); m !== null; m = eol.exec(this.buffer)) {
      // A lone CR at the end may be the first half of CRLF: wait for more text.
      if (m[0] === "\r" && m.index === this.buffer.length - 1) break;
      this.line(this.buffer.slice(from, m.index), events);
      from = eol.lastIndex;
    }
    this.buffer = this.buffer.slice(from);
    return events;
  }

  /** The body ended: a line held back for a possible CRLF is complete after all. */
  end(): SseEvent[] {
    return this.buffer.endsWith("\r") ? this.push("\n") : [];
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === "") {
      if (this.data.length > 0) {
        events.push({ event: this.eventName || "message", data: this.data.join("\n"), id: this.lastId });
      }
      this.eventName = "";
      this.data = [];
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.eventName = value;
    else if (field === "data") this.data.push(value);
    else if (field === "id" && !value.includes("\0")) this.lastId = value;
  }
}
