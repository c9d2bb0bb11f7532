// Bus: cross-instance control messages (cancel, steer, resume, a gateway decision) over PostgreSQL
// LISTEN/NOTIFY on one channel (default `agentsvc_control`), on the instance's InstanceLink.
// Messages are JSON objects `{ kind, target, ... }`; `subscribe(kind, handler)` receives those of
// one kind.
//
// What it guarantees: a message published while a subscriber's session is LISTENing reaches that
// session once (PostgreSQL delivers each committed NOTIFY to every listening session, the
// publisher's own included, in commit order). What it does not: a message sent while a
// subscriber's connection is down (the reconnect window) is never delivered to it, and nothing is
// stored. So a notification is only a hint that a row changed: the row in the database stays the
// source of truth, and `onReconnect` (which runs after the channel is LISTENed again) is where a
// caller re-reads the rows it watches, so nothing between the drop and the new LISTEN is missed.
import type { InstanceLink } from "./link.js";

/** A control message. `kind` picks the subscribers; `target` names what it is about (a run, a thread). */
export interface BusMessage {
  kind: string;
  target: string;
  [field: string]: unknown;
}

/** How a message arrived. */
export interface BusDelivery {
  /** Backend pid of the publishing session. */
  senderPid: number;
  /** True when this instance's own link published it (publishers receive their own messages). */
  self: boolean;
}

export type BusHandler = (message: BusMessage, delivery: BusDelivery) => void | Promise<void>;

/** What a subscriber asks of the messages it is handed (`subscribe`'s third argument). */
export interface BusSubscribeOptions {
  /**
   * Whether this subscriber wants a message about `target`: one it does not is not handed to it,
   * and a message no subscriber of its kind wants is dropped before its JSON is parsed (its kind
   * and target read from the payload's opening `{"kind":…,"target":…`, as busPayload writes it).
   */
  wants?(target: string): boolean;
}

interface Subscriber {
  handler: BusHandler;
  wants: ((target: string) => boolean) | undefined;
}

/** The opening busPayload writes: kind, then target. */
const KIND_OPENING = '{"kind":"';
const TARGET_OPENING = '","target":"';

/**
 * The kind and target a payload opens with, when it opens `{"kind":"K","target":"T",` or `…"T"}`
 * with neither holding an escape (a backslash); otherwise undefined, and the payload is parsed.
 */
export function openingOf(payload: string): { kind: string; target: string } | undefined {
  if (!payload.startsWith(KIND_OPENING)) return undefined;
  const kindEnd = payload.indexOf('"', KIND_OPENING.length);
  if (kindEnd < 0 || !payload.startsWith(TARGET_OPENING, kindEnd)) return undefined;
  const targetStart = kindEnd + TARGET_OPENING.length;
  const targetEnd = payload.indexOf('"', targetStart);
  if (targetEnd < 0) return undefined;
  const next = payload[targetEnd + 1];
  if (next !== "," && next !== "}") return undefined;
  const kind = payload.slice(KIND_OPENING.length, kindEnd);
  const target = payload.slice(targetStart, targetEnd);
  if (kind.includes("\\") || target.includes("\\")) return undefined;
  return { kind, target };
}

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more (in the server encoding; UTF-8 assumed). */
export const NOTIFY_PAYLOAD_LIMIT = 8000;

/** Messages one publishing statement carries at most (their payloads under 8000 bytes each). */
const MAX_BATCH = 100;

interface Waiting {
  payload: string;
  resolve(): void;
  reject(error: unknown): void;
}

export class BusPayloadTooLargeError extends Error {
  readonly bytes: number;
  constructor(kind: string, bytes: number) {
    super(
      `Bus.publish: the "${kind}" message is ${bytes} bytes of JSON; a NOTIFY payload must be under ` +
        `${NOTIFY_PAYLOAD_LIMIT} bytes. Store the data in a row and send its id instead.`,
    );
    this.name = "BusPayloadTooLargeError";
    this.bytes = bytes;
  }
}

/**
 * The NOTIFY payload of `message` (its JSON), checked as `publish` checks it. For a notification
 * that must go out only if a row change commits, send it in that transaction on your own
 * connection: `SELECT pg_notify($1, $2)` with `[bus.channel, busPayload(message)]`.
 */
export function busPayload(message: BusMessage): string {
  if (typeof message.kind !== "string" || message.kind === "") {
    throw new Error("Bus.publish: kind must be a non-empty string");
  }
  if (typeof message.target !== "string") throw new Error("Bus.publish: target must be a string");
  // kind and target lead, so a subscriber's `wants` can read them before the rest is parsed.
  const { kind, target, ...rest } = message;
  const payload = JSON.stringify({ kind, target, ...rest });
  // Stryker disable next-line StringLiteral: Buffer.byteLength counts UTF-8 for an empty encoding too (the multi-byte test in bus.test.ts passes either way)
  const bytes = Buffer.byteLength(payload, "utf8");
  if (bytes >= NOTIFY_PAYLOAD_LIMIT) throw new BusPayloadTooLargeError(message.kind, bytes);
  return payload;
}

export interface BusOptions {
  /**
   * The LISTEN/NOTIFY channel: a lower-case SQL identifier (a reserved word such as `select` too: the
   * bus quotes it). Default `agentsvc_control`.
   */
  channel?: string;
  /** Told about an unreadable payload, a handler that threw, or a failed re-LISTEN. */
  onError?: (error: Error, context: string) => void;
}

export class Bus {
  readonly channel: string;
  /**
   * The channel as LISTEN and UNLISTEN name it: quoted, so a reserved word is a name and not a
   * syntax error. The name check leaves no quote to escape, and a quoted lower-case name is the
   * text pg_notify sends to.
   */
  readonly #quoted: string;
  readonly #link: InstanceLink;
  readonly #onError: ((error: Error, context: string) => void) | undefined;
  readonly #handlers = new Map<string, Set<Subscriber>>();
  readonly #reconnect = new Set<() => void | Promise<void>>();
  #listening = false;
  #off: (() => void)[] = [];
  /** Messages published while a publishing statement is in flight: they go together in the next. */
  #waiting: Waiting[] = [];
  #flushing = false;

  constructor(link: InstanceLink, options: BusOptions = {}) {
    const channel = options.channel ?? "agentsvc_control";
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) {
      throw new Error(`Bus: channel must be a lower-case SQL identifier (got ${JSON.stringify(channel)})`);
    }
    this.channel = channel;
    this.#quoted = `"${channel}"`;
    this.#link = link;
    this.#onError = options.onError;
  }

  /** LISTENs on the channel (the link must be connected), and again after every reconnect. */
  async start(): Promise<void> {
    if (this.#listening) return;
    this.#off.push(
      this.#link.onNotification((n) => {
        if (n.channel === this.channel) this.#deliver(n.payload, n.senderPid);
      }),
      this.#link.onReconnect(async () => {
        await this.#link.query(`LISTEN ${this.#quoted}`);
        for (const handler of [...this.#reconnect]) {
          try {
            await handler();
          } catch (e) {
            this.#report(e, "onReconnect");
          }
        }
      }),
    );
    this.#listening = true;
    try {
      await this.#link.query(`LISTEN ${this.#quoted}`);
    } catch (e) {
      await this.stop();
      throw e;
    }
  }

  /**
   * NOTIFYs every listening instance (this one included) with `message` as JSON. Rejects a payload
   * of 8000 bytes or more with `BusPayloadTooLargeError`, and `LinkDownError` while the link is down.
   */
  /**
   * Sends `message` as one NOTIFY. Messages published while a publishing statement is in flight
   * (or in the same tick) go together in the next statement, in the order they were published,
   * each still its own notification: a burst costs a few round trips on the link, not one each.
   * Identical messages never share a statement (PostgreSQL would fold them into one).
   */
  async publish(message: BusMessage): Promise<void> {
    const payload = busPayload(message);
    await new Promise<void>((resolve, reject) => {
      this.#waiting.push({ payload, resolve, reject });
      if (!this.#flushing) {
        this.#flushing = true;
        queueMicrotask(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    try {
      while (this.#waiting.length > 0) {
        const batch = this.#take();
        try {
          const payloads = batch.map((w) => w.payload);
          if (payloads.length === 1)
            await this.#link.query("SELECT pg_notify($1, $2)", [this.channel, payloads[0]]);
          // One transaction: every NOTIFY of the batch is delivered on its commit, in this order.
          else
            await this.#link.query(
              "SELECT pg_notify($1, p) FROM unnest($2::text[]) WITH ORDINALITY AS t(p, i) ORDER BY i",
              [this.channel, payloads],
            );
        } catch (error) {
          for (const w of batch) w.reject(error);
          continue;
        }
        for (const w of batch) w.resolve();
      }
    } finally {
      this.#flushing = false;
    }
  }

  /** The oldest waiting messages up to the first payload already among them. */
  #take(): Waiting[] {
    const seen = new Set<string>();
    let n = 0;
    for (const w of this.#waiting) {
      if (seen.has(w.payload) || n >= MAX_BATCH) break;
      seen.add(w.payload);
      n++;
    }
    return this.#waiting.splice(0, n);
  }

  /**
   * Runs `handler` for each message of `kind` (`"*"`: every kind) that `options.wants` (when given)
   * wants by its target. Returns an unsubscribe function.
   */
  subscribe(kind: string, handler: BusHandler, options: BusSubscribeOptions = {}): () => void {
    let set = this.#handlers.get(kind);
    if (!set) {
      set = new Set();
      this.#handlers.set(kind, set);
    }
    const subscriber: Subscriber = { handler, wants: options.wants?.bind(options) };
    set.add(subscriber);
    return () => set.delete(subscriber);
  }

  /**
   * Runs after the link reconnected and the channel is LISTENed again: re-read the rows whose
   * notifications may have been missed while the connection was down.
   */
  onReconnect(handler: () => void | Promise<void>): () => void {
    this.#reconnect.add(handler);
    return () => this.#reconnect.delete(handler);
  }

  /** UNLISTENs (when connected) and detaches from the link. */
  async stop(): Promise<void> {
    for (const off of this.#off) off();
    this.#off = [];
    if (!this.#listening) return;
    this.#listening = false;
    if (this.#link.connected) await this.#link.query(`UNLISTEN ${this.#quoted}`).catch(() => undefined);
  }

  #deliver(payload: string, senderPid: number): void {
    // Read by its opening first: a message nobody wants (an announcement for another instance's
    // thread, most of them with three instances) costs no JSON parse (#45.3).
    const opening = openingOf(payload);
    const wanted = opening && this.#wanting(opening.kind, opening.target);
    if (wanted?.length === 0) return;
    let message: BusMessage;
    try {
      const parsed: unknown = JSON.parse(payload);
      if (
        typeof parsed !== "object" ||
        parsed === null ||
        typeof (parsed as BusMessage).kind !== "string" ||
        typeof (parsed as BusMessage).target !== "string"
      ) {
        throw new Error("not an object with string kind and target");
      }
      message = parsed as BusMessage;
    } catch (e) {
      this.#report(e, `unreadable payload on ${this.channel}: ${payload.slice(0, 200)}`);
      return;
    }
    const delivery: BusDelivery = { senderPid, self: senderPid === this.#link.backendPid };
    const handlers = wanted ?? this.#wanting(message.kind, message.target);
    for (const handler of handlers) {
      try {
        const r = handler(message, delivery);
        if (r instanceof Promise) r.catch((e: unknown) => this.#report(e, `handler for "${message.kind}"`));
      } catch (e) {
        this.#report(e, `handler for "${message.kind}"`);
      }
    }
  }

  /** The handlers of `kind` (and of every kind) that want a message about `target`. */
  #wanting(kind: string, target: string): BusHandler[] {
    const handlers: BusHandler[] = [];
    for (const set of [this.#handlers.get(kind), this.#handlers.get("*")])
      for (const s of set ?? []) if (!s.wants || s.wants(target)) handlers.push(s.handler);
    return handlers;
  }

  #report(e: unknown, context: string): void {
    this.#onError?.(e instanceof Error ? e : new Error(String(e)), `bus: ${context}`);
  }
}
