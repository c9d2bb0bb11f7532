// The reads early.ts starts from <head>, handed to main.ts.

/** One read: the response, and its body parsed as JSON as soon as it arrives (when the answer is 2xx). */
export interface EarlyRead {
  response: Promise<Response>;
  /** Undefined for a non-2xx answer: its body stays unread, for the main script's error handling. */
  body: Promise<unknown>;
}

export interface EarlyReads {
  /** The API key and last-opened conversation they were sent with. */
  key: string | null;
  last: string | null;
  info: EarlyRead;
  conversations: EarlyRead;
  history?: EarlyRead;
}

/**
 * The early reads, once, if they were sent with the key and conversation the page now uses
 * (otherwise the page reads again itself).
 */
export function takeEarlyReads(key: string | null, last: string | null): EarlyReads | undefined {
  const holder = window as { agentsvcEarlyReads?: EarlyReads };
  const reads = holder.agentsvcEarlyReads;
  holder.agentsvcEarlyReads = undefined;
  if (!reads || reads.key !== key || reads.last !== last) return undefined;
  return reads;
}
