/**
 * How often the outbox sender looks for pieces due when nothing woke it (pieces requeued behind its
 * back, `agentsvc outbox`). Its own file so a host's stand-in makes the same look without loading the sender.
 */
export const OUTBOX_IDLE_POLL_MS = 5_000;
