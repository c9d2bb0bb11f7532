// Advisory-lock keys. PostgreSQL's session advisory locks take one signed 64-bit key; we derive it
// from a readable, namespaced name so every instance computes the same key for the same thing:
//
//   key = the first 8 bytes of SHA-256(UTF-8 name), read big-endian as a signed 64-bit integer.
//
// The name is what is logged and reported; the key is only what PostgreSQL sees (in `pg_locks`
// as classid = high 32 bits, objid = low 32 bits, objsubid = 1). Two different names share a key
// with probability about n^2 / 2^65 for n names in use at once: negligible, and a collision only
// makes two names contend for one lock (never lets two holders share one).
import { createHash } from "node:crypto";

/** Every name this package locks starts with `agentsvc:`, so keys do not meet other users' names. */
export const KEY_PREFIX = "agentsvc:";

/** The 64-bit advisory-lock key of `name` (see the file header for the hash). */
export function advisoryKey(name: string): bigint {
  // Stryker disable next-line StringLiteral: Node's Hash.update reads a string as UTF-8 for an empty encoding too (the UTF-8 vectors in lock-names.test.ts pass either way)
  const digest = createHash("sha256").update(name, "utf8").digest();
  return digest.readBigInt64BE(0);
}

/** Names whose decimal key `advisoryKeyText` keeps; the oldest goes first once there are this many. */
const KEY_TEXT_CACHE = 4096;
const keyTexts = new Map<string, string>();

/**
 * `advisoryKey(name)` in decimal, as the lock statements send it, kept for the last KEY_TEXT_CACHE
 * names: a gateway message asks for its thread's key 4-5 times (announce, lock, fence, unlock) and
 * the outbox roles' at every due read, and each was a SHA-256 (1.75% of the ingest-pg server's
 * self time).
 */
export function advisoryKeyText(name: string): string {
  let text = keyTexts.get(name);
  if (text === undefined) {
    text = advisoryKey(name).toString();
    if (keyTexts.size >= KEY_TEXT_CACHE) keyTexts.delete(keyTexts.keys().next().value as string);
    keyTexts.set(name, text);
  }
  return text;
}

/** `agentsvc:leader:<name>`: the lock of one push-style connection (a gateway entry's poller). */
export function leaderLockName(name: string): string {
  if (name === "") throw new Error("leadership name: must not be empty");
  return `${KEY_PREFIX}leader:${name}`;
}

/**
 * `<gateway>:<thread>`: the key of one conversation thread for `ThreadLocks`, which locks it as
 * `agentsvc:thread:<gateway>:<thread>`. The gateway (an entry name) may not contain `:`, so the
 * split is unambiguous; the thread id may (`repo:o/r:issue:12`).
 */
export function threadKey(gateway: string, thread: string): string {
  if (gateway === "" || gateway.includes(":")) {
    throw new Error(`threadKey: gateway must be non-empty and without ":" (got ${JSON.stringify(gateway)})`);
  }
  if (thread === "") throw new Error("threadKey: thread must not be empty");
  return `${gateway}:${thread}`;
}

/** `agentsvc:thread:<key>`. */
export function threadLockName(key: string): string {
  if (key === "") throw new Error("thread lock key: must not be empty");
  return `${KEY_PREFIX}thread:${key}`;
}
