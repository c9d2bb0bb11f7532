// Composes the project's schedules/ entries: a ScheduleRunner over the primary store and the gateway
// session, started once the session runs. Every instance runs one; the store's per-tick claim
// decides which instance records a tick. Passes run from a timer, outside any request, so each tick's
// `gateway.inbound` span is a root: every run is a trace of its own, continued by its turn and reply.
import { hostname } from "node:os";
import type { ChatDb } from "@agentsvc/chat-store";
import type { Project } from "@agentsvc/config-schema";
import { ScheduleRunner, type SchedulerObserver } from "@agentsvc/scheduler";
import type { GatewaySession } from "@agentsvc/session-core";
import type { Logger } from "pino";

export async function startSchedules(input: {
  project: Project;
  session: GatewaySession;
  store: ChatDb;
  logger: Logger;
  observer?: SchedulerObserver;
}): Promise<ScheduleRunner | undefined> {
  const { project, session, store } = input;
  if (project.schedules.length === 0) return undefined;
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
  });
  await runner.start({ loop: true });
  return runner;
}
