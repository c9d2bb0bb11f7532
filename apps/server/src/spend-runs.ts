// Every run the server starts, resumes or continues runs under the spend meter, with whose run it
// is: the user, conversation, agent and the push gateway it came from. Model calls anywhere under
// it (the turn's, a summary its memory starts) are checked against the budgets and recorded.
import {
  type ContinueOptions,
  type MeterScope,
  type ModelMeter,
  type RunManager,
  type RunOptions,
  withMeter,
} from "@agentsvc/agent-core";

function scopeOf(
  agent: string,
  options: Pick<RunOptions, "userId" | "conversationId" | "origin">,
): MeterScope {
  const scope: MeterScope = { agent, userId: options.userId, conversationId: options.conversationId };
  const origin = options.origin;
  if (origin?.gateway) {
    scope.gateway = origin.gateway;
    // A gateway's runs all belong to the gateway (session-core's userId): the person who pays is
    // the sender, `<entry>:<platform user id>` (the thread for an adapter that names no author).
    scope.userId = `${origin.gateway}:${origin.author?.id ?? origin.thread}`;
  }
  // A schedule's tick reaches the session as a message by `schedule:<name>` (packages/scheduler):
  // its calls are `scheduled` in the ledger. Only the ledger's kind depends on it, never a budget.
  if (origin?.author?.id.startsWith("schedule:")) scope.scheduled = true;
  return scope;
}

/** Wraps the manager's entry points (the instance's own methods) so each run carries the meter. */
export function meterRuns(runs: RunManager, meter: ModelMeter): void {
  const agent = runs.agent.name;
  const start = runs.start.bind(runs);
  runs.start = (input) => withMeter(meter, scopeOf(agent, input), () => start(input));
  // A continued run's scope is its saved options: the manager hands over the run it read (one read
  // of the saved run a resume, where this wrapper read it once more before).
  const metered = (options: ContinueOptions | undefined): ContinueOptions => {
    const outer = options?.startIn;
    return {
      ...options,
      startIn: (saved, begin) =>
        withMeter(meter, scopeOf(agent, saved.options), () => (outer ? outer(saved, begin) : begin())),
    };
  };
  const resume = runs.resume.bind(runs);
  runs.resume = (threadId, decision, caller, options) => resume(threadId, decision, caller, metered(options));
  const continueInterrupted = runs.continueInterrupted.bind(runs);
  runs.continueInterrupted = (threadId, options) => continueInterrupted(threadId, metered(options));
}
