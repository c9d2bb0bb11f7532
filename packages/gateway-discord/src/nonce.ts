// A message create's `nonce` from the outbox piece's idempotency key, sent with `enforce_nonce`:
// "If another message was created by the same author with the same nonce, that message will be
// returned and no new message will be created" (checked "in the past few minutes";
// https://discord.com/developers/docs/resources/message#create-message). So a send retried after
// its answer was lost (the message was created, the reply timed out) shows once.
import { createHash } from "node:crypto";

/** Discord takes a string nonce of at most 25 characters; keys are up to 1,024. */
const NONCE_LENGTH = 25;

/** The create params that make a retry of the same piece return the first message. */
export function nonceParams(idempotencyKey: string): { nonce: string; enforce_nonce: true } {
  const nonce = createHash("sha256").update(idempotencyKey).digest("hex").slice(0, NONCE_LENGTH);
  return { nonce, enforce_nonce: true };
}
