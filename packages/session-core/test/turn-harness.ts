// Situations the turn tests put a rig in: a message accepted, a second one while the first turn
// waits at its gate, a run that fails at maxSteps, a start the run manager refuses, a reply row the
// store refuses once.
import { AgentsvcError, DEFAULT_MAX_STEPS, type DemoStep } from "@agentsvc/agent-core";
import { type Rig, type RigOptions, until } from "./session-harness.js";

/** Delivers `text` to `thread` of the rig's mock gateway; resolves with its inbox record id. */
export async function acceptedId(r: Rig, thread: string, text: string): Promise<number> {
  const result = await r.gateway.inject({ thread, text });
  if (!result.accepted) throw new Error(`"${text}" was not accepted`);
  return result.id;
}

/** A first message whose turn waits at its gate, then `text` in the same thread: both record ids. */
export async function whileRunning(r: Rig, thread: string, text: string): Promise<[number, number]> {
  const first = await acceptedId(r, thread, "use wait_gate first");
  await until(() => r.gates.calls.length === 1, "the first turn at its gate");
  return [first, await acceptedId(r, thread, text)];
}

/** `whileRunning`, the second message `as` queued or steered into the turn, then everything run: both record ids. */
export async function behindRunning(
  r: Rig,
  thread: string,
  text: string,
  as: "queued" | "steered",
): Promise<[number, number]> {
  const ids = await whileRunning(r, thread, text);
  await until(() => r.session.snapshot("mock", thread)[as] === 1, `the second message ${as}`);
  r.gates.openAll();
  await r.session.idle();
  return ids;
}

/** A demo script whose every model call asks for a tool: with the gates open, the run fails at maxSteps. */
export function toolLoop(): DemoStep[] {
  return Array.from({ length: DEFAULT_MAX_STEPS + 1 }, (_, i) => ({
    toolCalls: [{ name: "wait_gate", arguments: { note: `step ${i}` } }],
  }));
}

/** The run manager refuses every start (not a settling thread: no retry); counts the attempts. */
export function refuseStarts(r: Rig): { attempts: () => number } {
  let attempts = 0;
  r.runs.start = () => {
    attempts++;
    throw new AgentsvcError("run_store_unavailable", "the run store refused the run", 503);
  };
  return { attempts: () => attempts };
}

/**
 * The store refuses the first reply row (a text piece) written inside a transaction (with the
 * turn's messages), or wherever it is written with `anywhere`.
 */
export function refuseReplyRowOnce(r: Rig, { anywhere = false } = {}): void {
  const enqueue = r.db.outbox.enqueue.bind(r.db.outbox);
  let refuse = true;
  r.db.outbox.enqueue = (items) => {
    if (refuse && items.some((item) => item.kind === "text") && (anywhere || r.db.inTransaction())) {
      refuse = false;
      return Promise.reject(new Error("the reply row was refused"));
    }
    return enqueue(items);
  };
}

/** A streaming mock gateway whose previews update every `intervalMs` (20), on a model that streams slowly. */
export const streamed = (options: RigOptions, intervalMs = 20): RigOptions => ({
  gateway: { stream: {} },
  entries: [{ name: "mock", type: "mock", streamIntervalMs: intervalMs }],
  tokenDelayMs: 10,
  ...options,
});
