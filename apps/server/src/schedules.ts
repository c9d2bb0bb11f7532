// Composes the project's schedules/ entries and the reminders people set with the remind tool: a
// ScheduleRunner over the primary store and the gateway session, started once the session runs.
// Every instance runs one; the store's per-tick claim decides which instance records a tick. Passes
// run from a timer, outside any request, so each tick's `gateway.inbound` span is a root: every run
// is a trace of its own, continued by its turn and reply.
import { hostname } from "node:os";
import type { AgentDefinition, ToolDefinition } from "@agentsvc/agent-core";
import type { ChatDb } from "@agentsvc/chat-store";
import type { Project } from "@agentsvc/config-schema";
import { remindTools, ScheduleRunner, type SchedulerObserver } from "@agentsvc/scheduler";
import type { GatewaySession } from "@agentsvc/session-core";
import type { Logger } from "pino";

/** The agent's `reminders` setting: the built-in reminder tools, or none when it is off. */
export function reminderToolsOf(agent: AgentDefinition, store: ChatDb): ToolDefinition[] {
  const r = agent.reminders;
  if (!r) return [];
  return remindTools({ store: store.reminders, agent: agent.name, ...(r === true ? {} : r) });
}

export async function startSchedules(input: {
  project: Project;
  session: GatewaySession;
  store: ChatDb;
  logger: Logger;
  observer?: SchedulerObserver;
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
    },
    instance: `${hostname()}:${process.pid}`,
    logger: input.logger,
    ...(input.observer ? { observer: input.observer } : {}),
    ...(reminders ? { reminders: store.reminders } : {}),
  });
  await runner.start({ loop: true });
  return runner;
}
