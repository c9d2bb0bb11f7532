// Composes the project's schedules/ entries and the reminders people set with the remind tool: a
// ScheduleRunner over the primary store and the gateway session, started once the session runs.
// Every instance runs one; the store's per-tick claim decides which instance records a tick. Passes
// run from a timer, outside any request, so each tick's `gateway.inbound` span is a root: every run
// is a trace of its own, continued by its turn and reply.
import { hostname } from "node:os";
import type { AgentDefinition, RunManagerApi, ToolDefinition, TurnResult } from "@agentsvc/agent-core";
import type { ChatDb } from "@agentsvc/chat-store";
import type { Project } from "@agentsvc/config-schema";
import {
  type PageEnding,
  type PageTarget,
  remindTools,
  ScheduleRunner,
  type SchedulerObserver,
  type TickSink,
} from "@agentsvc/scheduler";
import type { GatewaySession } from "@agentsvc/session-core";
import type { Logger } from "pino";

/** The agent's `reminders` setting: the built-in reminder tools, or none when it is off. */
export function reminderToolsOf(agent: AgentDefinition, store: ChatDb): ToolDefinition[] {
  const r = agent.reminders;
  if (!r) return [];
  return remindTools({ store: store.reminders, agent: agent.name, ...(r === true ? {} : r) });
}

/** A chat page a schedule may post into: its store (the conversation index) and its shared user. */
export interface SchedulePage {
  db: ChatDb;
  /** The user of a page without `users` (its shared workspace). */
  sharedUserId: string;
}

export async function startSchedules(input: {
  project: Project;
  session: Pick<GatewaySession, "deliver" | "status">;
  store: ChatDb;
  logger: Logger;
  observer?: SchedulerObserver;
  /** The runs of an agent by file name (absent: the root agent's): chat page targets run their turn there. */
  runs?: (agent: string | undefined) => RunManagerApi | undefined;
  /** Chat pages by entry name. */
  pages?: Map<string, SchedulePage>;
}): Promise<ScheduleRunner | undefined> {
  const { project, session, store } = input;
  const reminders = !!(project.rootAgent.definition as AgentDefinition).reminders;
  if (project.schedules.length === 0 && !reminders) return undefined;
  const runner = new ScheduleRunner({
    schedules: project.schedules,
    store: store.scheduleTicks,
    sink: {
      deliver: (inbound, options) => session.deliver(inbound, options),
      hasGateway: (gateway) => session.status()[gateway]?.state === "running",
      ...(input.runs && input.pages ? { runPage: pageRunner(input.runs, input.pages) } : {}),
    },
    instance: `${hostname()}:${process.pid}`,
    logger: input.logger,
    ...(input.observer ? { observer: input.observer } : {}),
    ...(reminders ? { reminders: store.reminders } : {}),
  });
  await runner.start({ loop: true });
  return runner;
}

/**
 * A chat page tick: the prompt is the user's message and the agent's reply follows it in that
 * user's conversation (what the page shows when it next loads the conversation); the conversation
 * index records it like a turn from the page. `within` commits with the turn.
 */
function pageRunner(
  runsOf: (agent: string | undefined) => RunManagerApi | undefined,
  pages: Map<string, SchedulePage>,
): NonNullable<TickSink["runPage"]> {
  return async ({ agent, target, prompt, within }: Parameters<NonNullable<TickSink["runPage"]>>[0]) => {
    const page = pages.get(target.page);
    if (!page) return { error: `chat page "${target.page}" is not served` };
    const runs = runsOf(agent);
    if (!runs) return { error: `agent "${agent}" is not running` };
    const userId = userOf(target, page);
    try {
      // Another account's conversation of that id is refused, as the page refuses it.
      await page.db.conversations.assertCanUse(userId, target.conversation);
    } catch (err) {
      return { error: `conversation "${target.conversation}": ${(err as Error).message}` };
    }
    const handle = runs.start({
      input: prompt,
      userId,
      conversationId: target.conversation,
      // A failed turn persists its messages too: the tick commits with how the turn ended.
      persistWith: (result) => within(endingOf(result)),
    });
    const result = await handle.done;
    if (result.status === "suspended") return { suspended: true };
    const ended = endingOf(result);
    if ("error" in ended) return ended;
    await page.db.conversations.recordTurn({
      userId,
      conversationId: target.conversation,
      userMessage: prompt,
    });
    return { text: result.text };
  };
}

const userOf = (target: PageTarget, page: SchedulePage) => target.user ?? page.sharedUserId;

const endingOf = (result: TurnResult): PageEnding =>
  result.status === "completed"
    ? { text: result.text }
    : { error: `the turn ended ${result.status}${result.error ? ` (${result.error.code})` : ""}` };
