// A recorded message handed to its thread: run here under the busy policy, or (several instances)
// announced to the instance that holds the thread.
import type { Coordination, RecordAnnounce } from "./coordination.js";
import type { Ownership } from "./ownership.js";
import type { SessionParts } from "./parts.js";
import type { BusyPolicy } from "./policy.js";
import { gatewayThreadId, type QueuedMessage } from "./threads.js";

export interface DispatchDeps {
  parts: SessionParts;
  ownership: Ownership;
  coordination: Coordination;
  policy: BusyPolicy;
  /** Inbox ids recovery scheduled: a message delivered while it ran is not queued twice. */
  known: ReadonlySet<number>;
}

export async function dispatchRecorded(
  d: DispatchDeps,
  gateway: string,
  thread: string,
  msg: QueuedMessage,
): Promise<void> {
  if (d.known.has(msg.inboxId)) return;
  // Held by another instance: announced to it with the failed take where the coordination can.
  const held = { kind: "thread", gateway, thread, held: true, id: msg.inboxId } as const;
  const outcome = await d.ownership.withHeld(
    gateway,
    thread,
    async (state) => {
      if (state.taken.has(msg.inboxId)) return;
      // Several instances: older messages of the thread may have been recorded elsewhere and
      // not announced yet; they go first, in the order they were recorded (this one among them).
      if (d.coordination.shared) return d.ownership.takeFresh(state);
      return d.policy.onMessage(state, msg);
    },
    held,
  );
  if (outcome === "ran" || outcome === "announced") return;
  // Not run here: announced. Held by another instance: its holder takes the message from the
  // store. Otherwise (a turn lost here winding down, a failed take) any instance may take it.
  await d.coordination.publish(
    outcome === "elsewhere" ? held : { kind: "thread", gateway, thread, id: msg.inboxId },
  );
}

/**
 * What the statement recording a message for the thread sends to its holder when another instance
 * holds it (Coordination.recordAnnounce): the recorder then asks for no lock, where the failed take
 * and its announcement were a lock statement per message of threads held elsewhere (#45.3). None for a
 * thread held here, or without the coordination's support.
 */
export function recordAnnounceFor(
  d: Pick<DispatchDeps, "ownership" | "coordination">,
  gateway: string,
  thread: string,
): RecordAnnounce | undefined {
  const threadId = gatewayThreadId(gateway, thread);
  if (!d.coordination.recordAnnounce || d.ownership.holds(threadId)) return undefined;
  return d.coordination.recordAnnounce(threadId, { kind: "thread", gateway, thread, held: true });
}
