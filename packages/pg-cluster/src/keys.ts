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

/** Names whose decimal key `advisoryKeyText` keeps: the last half this many, at least. */
const KEY_TEXT_CACHE = 4096;
// Two generations: a name is looked up in the young one, then the old one (and moved up); when the
// young one is full it becomes the old one. Dropping a Map's oldest entry instead
// (`delete(keys().next().value)`) walks past every entry deleted before it, which V8 keeps as
// holes until it rehashes: with every message on a new thread, 1.9-2.5 us of CPU a new name against
// 0.3-0.5 us here (a microbenchmark; 1.1% of the ingest-pg server's self time in a profile).
let youngKeys = new Map<string, string>();
let oldKeys = new Map<string, string>();

/**
 * `advisoryKey(name)` in decimal, as the lock statements send it, kept for recent names: a gateway
 * message asks for its thread's key 4-5 times (announce, lock, fence, unlock) and the outbox
 * roles' at every due read, and each was a SHA-256 (1.75% of the ingest-pg server's self time).
 */
export function advisoryKeyText(name: string): string {
  let text = youngKeys.get(name);
  if (text === undefined) {
    text = oldKeys.get(name) ?? advisoryKey(name).toString();
    if (youngKeys.size >= KEY_TEXT_CACHE / 2) {
      oldKeys = youngKeys;
      youngKeys = new Map();
    }
    youngKeys.set(name, text);
  }
  return text;
}

/** Names `advisoryKeyText` keeps now (tests: the bound holds). */
export function keptKeyTexts(): number {
  return youngKeys.size + oldKeys.size;
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
