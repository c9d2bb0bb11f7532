// A Signal conversation is the other person: their phone number when Signal shares it, else their
// ACI (a UUID). Both are valid `recipient` values for signal-cli, so the thread id is sent as is.

/** The thread of a direct message: the sender's number, else the ACI. */
export function threadOf(envelope: {
  sourceNumber?: string | null;
  source?: string | null;
  sourceUuid?: string | null;
}): string | undefined {
  return envelope.sourceNumber || envelope.source || envelope.sourceUuid || undefined;
}

/** The `recipient` list of a JSON-RPC call to a thread. */
export function recipientOf(thread: string): string[] {
  return [thread];
}
