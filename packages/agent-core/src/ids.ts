import { randomBytes } from "node:crypto";

/** A random id with a readable prefix, e.g. `thr_3q9...`. 16 random bytes, base64url. */
export function randomId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString("base64url")}`;
}

export function mintThreadId(): string {
  return randomId("thr");
}
