// What a run may spend: a meter is asked before every model call (a turn's, a summary's) whether
// the call may go ahead, and told what every attempt used. The server sets it around the runs it
// starts (an AsyncLocalStorage scope), so a summary started by a turn's memory is metered as that
// turn's user and conversation without any API in between knowing.
import { AsyncLocalStorage } from "node:async_hooks";
import type { TurnError, Usage } from "./model-error.js";

/** Why a model call is made: a turn's call, a scheduled turn's call, or a summary (compaction). */
export type MeterKind = "turn" | "scheduled" | "compaction";

/** Whose call it is. */
export interface MeterScope {
  agent: string;
  userId: string;
  conversationId: string;
  /** The push gateway entry the turn came from; absent for the chat page and the agent route. */
  gateway?: string;
  /** A turn a schedule started: its calls are `scheduled` in the ledger. */
  scheduled?: boolean;
}

/** One attempt of a model call, as it ended. */
export interface MeteredCall {
  scope: MeterScope;
  kind: MeterKind;
  provider: string;
  modelId: string;
  /** `ok`, or the attempt's error code (`cancelled` included). */
  outcome: string;
  /** What the provider reported for this attempt (empty when it reported nothing). */
  usage: Usage;
}

export interface ModelMeter {
  /** Before a model call: a TurnError (`budget_exceeded`) refuses it; undefined lets it go. */
  admit(scope: MeterScope, kind: MeterKind): Promise<TurnError | undefined>;
  /** After each attempt. Must not throw; what it writes is its own business. */
  record(call: MeteredCall): void;
}

interface Metering {
  meter: ModelMeter;
  scope: MeterScope;
}

const current = new AsyncLocalStorage<Metering>();

/** Runs `fn` (a run's start, say) with the meter and scope every model call under it sees. */
export function withMeter<T>(meter: ModelMeter, scope: MeterScope, fn: () => T): T {
  return current.run({ meter, scope }, fn);
}

/** The meter of the run this code belongs to, if any. */
export function currentMeter(): Metering | undefined {
  return current.getStore();
}

/** Asks the current meter, if any, whether a model call of `kind` may go ahead. */
export async function admitModelCall(kind: MeterKind): Promise<TurnError | undefined> {
  const metering = current.getStore();
  if (!metering) return undefined;
  const refusal = await metering.meter.admit(
    { ...metering.scope },
    metering.scope.scheduled && kind === "turn" ? "scheduled" : kind,
  );
  return refusal;
}

/** Tells the current meter, if any, how an attempt ended. */
export function recordModelCall(
  kind: MeterKind,
  call: { provider: string; modelId: string; outcome: string; usage: Usage },
): void {
  const metering = current.getStore();
  if (!metering) return;
  try {
    metering.meter.record({
      ...call,
      scope: metering.scope,
      kind: metering.scope.scheduled && kind === "turn" ? "scheduled" : kind,
    });
  } catch {
    // The meter's own failure is never the turn's.
  }
}
