// Reminders as schedules: each stored reminder (chat-store's `reminders`, set with the remind tool)
// runs as the schedule `reminder:<id>` back to the thread it was set in. Its tick's message is the
// reminder text, written by `schedule:reminder:<id>`, so the remind tools refuse to run in it.

/** One stored reminder, as the runner and the tools read it (chat-store's `ReminderRow`). */
export interface Reminder {
  id: number;
  gateway: string;
  thread: string;
  userId: string;
  agent: string;
  text: string;
  at: number | null;
  cron: string | null;
  timezone: string;
  createdAt: number;
  endedAt: number | null;
  ended: "done" | "cancelled" | null;
}

/** What the runner and the tools need of the store (chat-store's `ChatDb.reminders`). */
export interface ReminderStore {
  create(
    r: {
      gateway: string;
      thread: string;
      userId: string;
      agent: string;
      text: string;
      at?: number;
      cron?: string;
      timezone: string;
    },
    max: number,
  ): Promise<Reminder | { full: number }>;
  ofUser(gateway: string, thread: string, userId: string): Promise<Reminder[]>;
  active(): Promise<Reminder[]>;
  get(id: number): Promise<Reminder | undefined>;
  end(id: number, how: "done" | "cancelled", owner?: { gateway: string; userId: string }): Promise<boolean>;
}

const PREFIX = "reminder:";

/** The schedule name of a reminder: `reminder:<id>` (in schedule_ticks, the CLI and metrics). */
export const reminderName = (id: number) => `${PREFIX}${id}`;

/** The reminder id of a schedule name, or undefined when it is not a reminder's. */
export function reminderIdOf(name: string): number | undefined {
  if (!name.startsWith(PREFIX)) return undefined;
  const id = Number(name.slice(PREFIX.length));
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** Authors of scheduled messages (schedules and reminders) are `schedule:<name>`; no platform id has that form. */
export const isScheduledAuthor = (authorId: string | undefined) => authorId?.startsWith("schedule:") === true;

/** The message a reminder's tick records: the agent's turn reads it and tells the person. */
export function reminderPrompt(r: Pick<Reminder, "text" | "createdAt" | "timezone">): string {
  const set = new Date(r.createdAt).toLocaleString("en-GB", {
    timeZone: r.timezone,
    dateStyle: "medium",
    timeStyle: "short",
  });
  return `Reminder (set on ${set} ${r.timezone}): ${r.text}`;
}

/** A local date and time in a timezone, for the person (`2026-12-03 09:00 Europe/Berlin`). */
export function localTime(ms: number, timezone: string): string {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone: timezone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(new Date(ms));
  const p = (type: string) => parts.find((x) => x.type === type)?.value ?? "";
  return `${p("year")}-${p("month")}-${p("day")} ${p("hour")}:${p("minute")} ${timezone}`;
}
