import type { ChunkDelta, ChunkEnvelope } from "./chunk.js";
import type { RunEvent } from "./run-manager-types.js";

/** The fields of one chunk; the `chat.completion.chunk` envelope is built only when read. */
export interface LogEntry {
  id: string;
  model: string;
  created: number;
  delta: ChunkDelta;
  finish: string | null;
  kind?: ChunkEnvelope["kind"];
}

/**
 * A log packed into strings: deltas as one JSON array, the (id, model, created) header as runs
 * (a model call shares one id), finish reasons and kinds as sparse [index, value] pairs.
 */
interface Packed {
  firstSeq: number;
  deltas: string;
  rest: string;
}

/**
 * Every chunk of one thread's run, numbered, kept so a reconnecting client can replay what it
 * missed (`since(after)`). Readers wait on `changed()` for the next push or segment end.
 *
 * Envelopes (`chat.completion.chunk` objects) are built only for a reader: an `/invoke` turn
 * is never read, so it must not pay for ~50 envelopes it throws away. A run's events stay
 * replayable for `retainMs` after it ends. Kept as objects, a busy server holds hundreds of
 * thousands of small objects that every major GC must mark, so once the run has ended and no
 * reader is left (`retire`), the log is packed into two strings and parsed back only if someone
 * replays it.
 */
export class RunEventLog {
  private entries: LogEntry[] = [];
  private firstSeq: number;
  private packed: Packed | undefined;
  private waiters: (() => void)[] = [];
  private next: number;
  private readers = 0;
  private retired = false;

  constructor(firstSeq = 1) {
    this.next = firstSeq;
    this.firstSeq = firstSeq;
  }

  get lastSeq(): number {
    return this.next - 1;
  }

  /** Appends one chunk given as an envelope. */
  push(chunk: ChunkEnvelope): void {
    const [choice] = chunk.choices;
    this.append({
      id: chunk.id,
      model: chunk.model,
      created: chunk.created,
      delta: choice.delta,
      finish: choice.finish_reason,
      ...(chunk.kind ? { kind: chunk.kind } : {}),
    });
  }

  /** Appends one chunk by its fields; `created` is now, in seconds, as OpenAI sends it. */
  pushDelta(
    id: string,
    model: string,
    delta: ChunkDelta,
    finish: string | null = null,
    kind?: ChunkEnvelope["kind"],
  ): void {
    const entry: LogEntry = { id, model, created: Math.floor(Date.now() / 1000), delta, finish };
    if (kind) entry.kind = kind;
    this.append(entry);
  }

  private append(entry: LogEntry): void {
    if (this.packed) this.unpack();
    this.retired = false;
    if (this.entries.length === 0) this.firstSeq = this.next;
    this.entries.push(entry);
    this.next++;
    this.notify();
  }

  /** Events after `after`, up to seq `through` and at most `max` of them. */
  since(after: number, through = Number.POSITIVE_INFINITY, max = Number.POSITIVE_INFINITY): RunEvent[] {
    const out: RunEvent[] = [];
    this.visit(after, through, max, (seq, entry) => out.push({ seq, chunk: envelope(entry) }));
    return out;
  }

  /**
   * Calls `fn` with the seq and fields of each event after `after` (up to seq `through`, at most
   * `max`), building no envelope; returns the seq of the last one (`after` when none). What a
   * writer that serializes the fields itself reads, with nothing per event to collect.
   */
  visit(
    after: number,
    through: number,
    max: number,
    fn: (seq: number, entry: Readonly<LogEntry>) => void,
  ): number {
    const entries = this.packed ? unpackEntries(this.packed) : this.entries;
    // seq values are contiguous, so the start and end indexes are arithmetic.
    const start = Math.max(0, after + 1 - this.firstSeq);
    const end = Math.min(entries.length, through + 1 - this.firstSeq, start + max);
    for (let i = start; i < end; i++) fn(this.firstSeq + i, entries[i] as LogEntry);
    return end > start ? this.firstSeq + end - 1 : after;
  }

  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Calls `wake` once, at the next push or `notify` (what `changed` resolves on, without a promise). */
  onNext(wake: () => void): void {
    this.waiters.push(wake);
  }

  notify(): void {
    if (this.waiters.length === 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** A reader (`events`/`batches`) started; the log stays unpacked while one is active. */
  addReader(): void {
    this.readers++;
  }

  removeReader(): void {
    this.readers--;
    if (this.retired && this.readers === 0) this.pack();
  }

  /** The run's current stretch has ended: pack now, or when the last reader is done. */
  retire(): void {
    this.retired = true;
    if (this.readers === 0) this.pack();
  }

  private pack(): void {
    if (this.packed || this.entries.length === 0) return;
    const entries = this.entries;
    const deltas: ChunkDelta[] = [];
    // [count, id, model, created] per run of entries sharing a header.
    const headers: (string | number)[][] = [];
    const finishes: (string | number)[] = [];
    const kinds: (string | number)[] = [];
    let run: (string | number)[] | undefined;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i] as LogEntry;
      deltas.push(e.delta);
      if (run && run[1] === e.id && run[2] === e.model && run[3] === e.created) (run[0] as number)++;
      else {
        run = [1, e.id, e.model, e.created];
        headers.push(run);
      }
      if (e.finish !== null) finishes.push(i, e.finish);
      if (e.kind) kinds.push(i, e.kind);
    }
    this.packed = {
      firstSeq: this.firstSeq,
      deltas: JSON.stringify(deltas),
      rest: JSON.stringify([headers, finishes, kinds]),
    };
    this.entries = [];
  }

  private unpack(): void {
    this.entries = unpackEntries(this.packed as Packed);
    this.firstSeq = (this.packed as Packed).firstSeq;
    this.packed = undefined;
  }
}

function envelope(e: LogEntry): ChunkEnvelope {
  const chunk: ChunkEnvelope = {
    id: e.id,
    object: "chat.completion.chunk",
    created: e.created,
    model: e.model,
    choices: [{ index: 0, delta: e.delta, finish_reason: e.finish }],
  };
  if (e.kind) chunk.kind = e.kind;
  return chunk;
}

function unpackEntries(packed: Packed): LogEntry[] {
  const deltas = JSON.parse(packed.deltas) as ChunkDelta[];
  const [headers, finishes, kinds] = JSON.parse(packed.rest) as [
    [number, string, string, number][],
    (string | number)[],
    (string | number)[],
  ];
  const entries: LogEntry[] = [];
  for (const [count, id, model, created] of headers) {
    for (let n = 0; n < count; n++) {
      entries.push({ id, model, created, delta: deltas[entries.length] as ChunkDelta, finish: null });
    }
  }
  for (let i = 0; i < finishes.length; i += 2) {
    (entries[finishes[i] as number] as LogEntry).finish = finishes[i + 1] as string;
  }
  for (let i = 0; i < kinds.length; i += 2) {
    (entries[kinds[i] as number] as LogEntry).kind = kinds[i + 1] as ChunkEnvelope["kind"];
  }
  return entries;
}
