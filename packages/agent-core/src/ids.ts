import { randomFillSync } from "node:crypto";

// Random bytes are drawn in blocks: one randomBytes(16) call per id (two per turn) was a visible
// share of a turn's CPU. Same CSPRNG, 16 bytes per id as before.
const POOL_SIZE = 16 * 256;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

/** A random id with a readable prefix, e.g. `thr_3q9...`. 16 random bytes, base64url. */
export function randomId(prefix: string): string {
  if (offset + 16 > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString("base64url", offset, offset + 16);
  offset += 16;
  return `${prefix}_${id}`;
}

export function mintThreadId(): string {
  return randomId("thr");
}
