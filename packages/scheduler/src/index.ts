export {
  dedupKeyOf,
  type GatewayTarget,
  type PageEnding,
  type PageTarget,
  type ScheduleDef,
  type ScheduleRunnerOptions,
  ScheduleRunner,
  type ScheduleStore,
  type SchedulerObserver,
  type StoredTick,
  type TickOutcome,
  type TickSink,
} from "./runner.js";
export { TickClock, type Timing } from "./ticks.js";
export { type Reminder, type ReminderStore, reminderIdOf, reminderName } from "./reminders.js";
export { type RemindToolsOptions, remindTools } from "./remind-tools.js";
