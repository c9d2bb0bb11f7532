// Thread ids of the http gateway: the client names its own conversations; the session keys the
// thread by that string as is, within bounds.

export const THREAD_MAX_LENGTH = 1024;

/** Why `value` is not a thread id (or an event id: same bounds), or undefined when it is one. */
export function idProblem(field: string, value: unknown): string | undefined {
  if (typeof value === "string" && value !== "" && value.length <= THREAD_MAX_LENGTH) return undefined;
  return `${field}: expected a non-empty string of at most ${THREAD_MAX_LENGTH} characters (got ${JSON.stringify(value) ?? "nothing"})`;
}
