// Thread ids of e-mail: a conversation is the Message-ID of its first mail; replies carry a `Re:`
// subject, In-Reply-To and a bounded References list so mail clients group them; an approval mail
// carries its request id in the subject.

/** `Re: <subject>` without stacking prefixes or the request tag. */
export function replySubject(subject: string): string {
  const bare = subject
    .replace(/\s*\[agentsvc:[^\]]+\]\s*/g, " ")
    .replace(/^\s*((re|aw|sv|fwd?)\s*(\[\d+\])?\s*:\s*)+/i, "")
    .trim();
  return `Re: ${bare || "(no subject)"}`;
}

const TAG = /\[agentsvc:(req_[A-Za-z0-9_-]+)\]/;

/** The request id an approval mail's subject carries, if any. */
export function requestTag(subject: string): string | undefined {
  return TAG.exec(subject)?.[1];
}

const REFERENCES_KEPT = 10;

/** The root and the newest ids: enough for every client to thread, without growing forever. */
export function keepReferences(ids: string[]): string[] {
  const unique = [...new Set(ids)];
  return unique.length <= REFERENCES_KEPT
    ? unique
    : [unique[0] as string, ...unique.slice(-(REFERENCES_KEPT - 1))];
}

/** The domain of an address (`ann@example.com` -> `example.com`). */
export function domainOf(address: string): string {
  return /@([^>\s]+)/.exec(address)?.[1] ?? "agentsvc.invalid";
}
