// The reads early.ts starts from <head>, handed to main.ts.

export interface EarlyReads {
  /** The API key and last-opened conversation they were sent with. */
  key: string | null;
  last: string | null;
  info: Promise<Response>;
  conversations: Promise<Response>;
  history?: Promise<Response>;
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
