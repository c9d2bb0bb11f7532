// PBKDF2-HMAC-SHA256 password hashes: `pbkdf2$<iterations>$<salt>$<digest>` (salt and digest base64url).
// The iteration count lives inside the hash so it can be raised later without invalidating old hashes.
import { pbkdf2, randomBytes, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

const pbkdf2Async = promisify(pbkdf2);

/** OWASP Password Storage Cheat Sheet recommendation for PBKDF2-HMAC-SHA256. */
export const DEFAULT_PBKDF2_ITERATIONS = 600_000;
const SALT_BYTES = 16;
const DIGEST_BYTES = 32;
/** Guards against a hostile hash string that would make verification run for minutes. */
const MAX_ITERATIONS = 10_000_000;

export interface ParsedPasswordHash {
  iterations: number;
  salt: Buffer;
  digest: Buffer;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Parses a stored hash; returns a reason string instead of throwing so callers can word their error. */
export function parsePasswordHash(hash: string): ParsedPasswordHash | string {
  const parts = hash.split("$");
  if (parts.length !== 4 || parts[0] !== "pbkdf2") {
    return 'expected "pbkdf2$<iterations>$<salt>$<digest>"';
  }
  const [, iterText = "", saltText = "", digestText = ""] = parts;
  if (!/^[1-9][0-9]*$/.test(iterText)) return `iterations must be a positive integer (got "${iterText}")`;
  const iterations = Number(iterText);
  if (iterations > MAX_ITERATIONS) return `iterations must be at most ${MAX_ITERATIONS} (got ${iterations})`;
  if (!BASE64URL.test(saltText)) return "salt must be non-empty base64url";
  if (!BASE64URL.test(digestText)) return "digest must be non-empty base64url";
  const salt = Buffer.from(saltText, "base64url");
  const digest = Buffer.from(digestText, "base64url");
  if (digest.length < 16) return `digest must be at least 16 bytes (got ${digest.length})`;
  return { iterations, salt, digest };
}

export function isPasswordHash(hash: string): boolean {
  return typeof parsePasswordHash(hash) !== "string";
}

/** Hashes a password with a fresh random salt. */
export async function hashPassword(password: string, options: { iterations?: number } = {}): Promise<string> {
  const iterations = options.iterations ?? DEFAULT_PBKDF2_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS) {
    throw new RangeError(
      `hashPassword: iterations must be an integer in 1..${MAX_ITERATIONS} (got ${iterations})`,
    );
  }
  const salt = randomBytes(SALT_BYTES);
  const digest = await pbkdf2Async(password.normalize("NFC"), salt, iterations, DIGEST_BYTES, "sha256");
  return `pbkdf2$${iterations}$${salt.toString("base64url")}$${digest.toString("base64url")}`;
}

/**
 * True when `password` matches `hash`, compared in constant time. A malformed hash verifies nothing
 * (returns false) rather than throwing, so a corrupt row cannot crash a sign-in.
 */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const parsed = parsePasswordHash(hash);
  if (typeof parsed === "string") return false;
  const candidate = await pbkdf2Async(
    password.normalize("NFC"),
    parsed.salt,
    parsed.iterations,
    parsed.digest.length,
    "sha256",
  );
  return timingSafeEqual(candidate, parsed.digest);
}

/** True when a stored hash uses fewer iterations than wanted (re-hash at the next chance). */
export function needsRehash(hash: string, iterations = DEFAULT_PBKDF2_ITERATIONS): boolean {
  const parsed = parsePasswordHash(hash);
  return typeof parsed === "string" || parsed.iterations < iterations;
}
