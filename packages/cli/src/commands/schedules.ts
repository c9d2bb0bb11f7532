// `agentsvc schedules`: the project's schedules/ entries with their next run, last run and last
// outcome; run one now; pause and resume. Works on the project's primary store (SQLite or
// PostgreSQL) while the server runs: `run` claims a tick that a running instance records within a
// second (or the next start does), and a pause holds on every instance from its next pass.
// Reminders people set with the remind tool are listed too (`reminder:<id>`), and can be cancelled.
import type { ReminderRow, TickRow } from "@agentsvc/chat-store";
import type { ScheduleEntry } from "@agentsvc/config-schema";
import { type Command, type CommandContext, EXIT_FAIL, EXIT_OK, EXIT_USAGE } from "../command.js";
import { escapeControls } from "../io.js";
import { readAction, usageError } from "../verb-action.js";
import { openStore } from "./outbox.js";

const ACTIONS = ["list", "run", "pause", "resume", "cancel"] as const;
/** Ended reminders stay listed this long (the operator sees how a one-off ended). */
const ENDED_LISTED_MS = 7 * 86_400_000;

export const schedulesCommand: Command = {
  name: "schedules",
  summary:
    "List schedules and reminders (next run, last run, last outcome); run one now; pause, resume or cancel one.",
  args: ["<list|run|pause|resume|cancel>", "[name]"],
  options: {
    dir: { type: "string", value: "<dir>", description: "the project folder (default: the current folder)" },
    json: { type: "boolean", description: "list: a JSON array instead of the table" },
  },
  details: [
    "agentsvc schedules list [--json]   every schedules/ entry: when, where, next run, last run, last outcome, last error",
    "agentsvc schedules run <name>      one tick now (the running service records it within a second)",
    "agentsvc schedules pause <name>    its ticks pass without running until resume (every instance)",
    "agentsvc schedules resume <name>   runs again from its next tick (missed ones are not made up)",
    "agentsvc schedules cancel reminder:<id>   ends a reminder someone set with the remind tool",
    "Reminders (reminder:<id>) are listed after the schedules/ entries; run, pause and resume take them too.",
  ].join("\n"),
  async run(ctx) {
    const { positionals, print } = ctx;
    const fail = usageError(print);
    const action = readAction(ctx, ACTIONS);
    if (action === undefined) return EXIT_USAGE;
    const args = positionals.slice(1);
    if (action === "list" ? args.length !== 0 : args.length !== 1)
      return fail(action === "list" ? "list takes no argument" : `${action} <name>`);
    // Refused before the store is opened, as every other usage error is (opening creates it).
    if (action === "cancel" && !/^reminder:\d+$/.test(args[0] as string))
      return fail("cancel takes a reminder (reminder:<id>); pause a schedules/ entry instead");
    const opened = await openStore(ctx);
    if (!opened) return EXIT_FAIL;
    try {
      const { project } = opened;
      const ticks = opened.db.scheduleTicks;
      if (action === "list") {
        const paused = await ticks.paused();
        const rows = await Promise.all(
          project.schedules.map(async (s) =>
            describe(s, paused.has(s.name), await ticks.last(s.name), await ticks.lastError(s.name)),
          ),
        );
        const since = Date.now() - ENDED_LISTED_MS;
        for (const r of await opened.db.reminders.recent(500)) {
          if (r.endedAt !== null && r.endedAt < since) continue;
          const name = `reminder:${r.id}`;
          rows.push(
            await describeReminder(r, paused.has(name), await ticks.last(name), await ticks.lastError(name)),
          );
        }
        if (ctx.values.json) print.out(JSON.stringify(rows, null, 2));
        else printTable(ctx, rows);
        return EXIT_OK;
      }
      const name = args[0] as string;
      const reminderId = /^reminder:(\d+)$/.exec(name)?.[1];
      const reminder = reminderId ? await opened.db.reminders.get(Number(reminderId)) : undefined;
      if (reminderId && !reminder) return fail(`no reminder ${escapeControls(name)}`, EXIT_FAIL);
      if (action === "cancel" && reminder) {
        if (!(await opened.db.reminders.end(reminder.id, "cancelled"))) {
          return fail(`${name} already ended (${reminder.ended})`, EXIT_FAIL);
        }
        print.out(`cancelled ${name}: it does not run again`);
        return EXIT_OK;
      }
      const entry = project.schedules.find((s) => s.name === name);
      if (!entry && !reminder) {
        const known = project.schedules.map((s) => s.name).join(", ") || "none";
        return fail(
          `no schedule "${escapeControls(name)}" under schedules/ (found: ${escapeControls(known)})`,
          EXIT_FAIL,
        );
      }
      if (action === "run") {
        const tickAt = Date.now();
        await ticks.claim({ schedule: name, tickAt, instance: "cli", manual: true });
        print.out(
          `queued a run of ${name} (tick ${new Date(tickAt).toISOString()}): the running service records it within a second, else its next start`,
        );
        return EXIT_OK;
      }
      await ticks.setPaused(name, action === "pause");
      print.out(
        action === "pause"
          ? `paused ${name}: its ticks pass without running`
          : `resumed ${name}: it runs from its next tick`,
      );
      return EXIT_OK;
    } finally {
      await opened.close();
    }
  },
};

const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());

async function describe(
  s: ScheduleEntry,
  paused: boolean,
  last: TickRow | undefined,
  error: TickRow | undefined,
) {
  const { TickClock } = await import("@agentsvc/scheduler");
  const next = s.enabled && !paused ? new TickClock(s).next(Date.now()) : undefined;
  return {
    name: s.name,
    when: s.cron !== undefined ? `cron ${s.cron}` : `every ${s.everyMs! / 1000}s`,
    timezone: s.timezone,
    to:
      "page" in s.to
        ? `page ${s.to.page} ${s.to.user ?? "(shared)"} ${s.to.conversation}`
        : `${s.to.gateway} ${s.to.thread}`,
    state: !s.enabled ? "disabled" : paused ? "paused" : "enabled",
    nextRun: iso(next),
    lastRun: iso(last?.tickAt),
    lastOutcome: last?.outcome ?? null,
    lastError: error?.error ?? null,
    lastErrorAt: iso(error?.tickAt),
  };
}

/** A reminder's row: `when` is its one time or its pattern, `to` names the person too. */
async function describeReminder(
  r: ReminderRow,
  paused: boolean,
  last: TickRow | undefined,
  error: TickRow | undefined,
): Promise<Row> {
  const { TickClock } = await import("@agentsvc/scheduler");
  const timing = r.at !== null ? { at: r.at, timezone: r.timezone } : { cron: r.cron!, timezone: r.timezone };
  const next = r.endedAt === null && !paused ? new TickClock(timing).next(Date.now()) : undefined;
  return {
    name: `reminder:${r.id}`,
    when: r.at !== null ? `once ${new Date(r.at).toISOString()}` : `cron ${r.cron}`,
    timezone: r.timezone,
    to: `${r.gateway} ${r.thread} (set by ${r.userId})`,
    state: r.ended ?? (paused ? "paused" : "enabled"),
    nextRun: iso(next),
    lastRun: iso(last?.tickAt),
    lastOutcome: last?.outcome ?? null,
    lastError: error?.error ?? null,
    lastErrorAt: iso(error?.tickAt),
  };
}

type Row = Awaited<ReturnType<typeof describe>>;

function printTable({ print }: CommandContext, rows: Row[]): void {
  if (rows.length === 0) {
    print.out("no schedules (add files under schedules/)");
    return;
  }
  const short = (s: string | null) => (s ? s.slice(0, 16).replace("T", " ") : "-");
  const header = ["name", "when", "to", "state", "next run", "last run", "outcome", "last error"];
  // Every cell escaped: thread ids and platform errors come from outside.
  const body = rows.map((r) =>
    [
      r.name,
      `${r.when} ${r.timezone}`,
      r.to,
      r.state,
      short(r.nextRun),
      short(r.lastRun),
      r.lastOutcome ?? "-",
      r.lastError ?? "-",
    ].map(escapeControls),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] as number))
      .join("  ")
      .trimEnd();
  print.out(print.style("out", "bold", line(header)));
  for (const b of body) print.out(line(b));
}
