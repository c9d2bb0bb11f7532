// The built-in reminder tools an agent gets with `reminders` in its definition: `remind` (one-off or
// recurring, back to the current thread), `list_reminders` and `cancel_reminder`. Who and where come
// from the run's origin (set by the server from the recorded message), never from model arguments:
// a person lists and cancels only their own reminders, in the chat they set them in. A turn started
// by a schedule or a reminder cannot set one (a reminder could otherwise re-create itself).
import { defineTool, type ToolContext, type ToolDefinition } from "@agentsvc/agent-core";
import { Cron } from "croner";
import * as v from "valibot";
import { isScheduledAuthor, localTime, type Reminder, type ReminderStore } from "./reminders.js";

export interface RemindToolsOptions {
  store: ReminderStore;
  /** The agent whose turns the reminders run (the root agent: the gateway session's). */
  agent: string;
  /** Active reminders per person (on one gateway); default 20. */
  maxPerUser?: number;
  /** Where times people give are read when the model names no timezone (IANA); default UTC. */
  timezone?: string;
  now?: () => number;
}

const DURATION = /^(?:\d+[smhdw])+$/;
const UNIT: Record<string, number> = { s: 1e3, m: 6e4, h: 36e5, d: 864e5, w: 6048e5 };
/** The soonest a reminder may be due, and the furthest ahead a one-off may be set. */
const MIN_AHEAD_MS = 10_000;
const MAX_AHEAD_MS = 5 * 365 * 864e5;
/** Recurring reminders at most hourly: more often is a loop burning tokens, not a reminder. */
const MIN_RECUR_MS = 36e5;

const remindInput = v.object({
  text: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(1_000)),
  at: v.optional(v.string()),
  in: v.optional(v.string()),
  cron: v.optional(v.string()),
  timezone: v.optional(v.string()),
});

type Where = { gateway: string; thread: string; userId: string };

/** The chat and the person of this run, or a refusal the model can pass on. */
function whereOf(ctx: ToolContext): Where {
  const origin = ctx.origin;
  if (!origin?.author) throw new Error("reminders can only be set, listed or cancelled from a chat");
  if (isScheduledAuthor(origin.author.id)) {
    throw new Error(
      "this turn was started by a schedule or a reminder: reminders cannot be set or changed from it",
    );
  }
  return { gateway: origin.gateway, thread: origin.thread, userId: origin.author.id };
}

function validZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** When a one-off reminder is due (epoch ms), from `at` (local ISO time or with an offset) or `in`. */
function dueOf(input: { at?: string; in?: string }, timezone: string, now: number): number {
  if (input.in !== undefined) {
    const s = input.in.trim().toLowerCase();
    if (!DURATION.test(s))
      throw new Error(`in: expected a duration such as "20m", "2h", "1d" (got "${input.in}")`);
    let ms = 0;
    for (const [, n, u] of s.matchAll(/(\d+)([smhdw])/g)) ms += Number(n) * UNIT[u as string]!;
    return now + ms;
  }
  const at = input.at!.trim();
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:\d{2})?$/.test(at)) {
    throw new Error(`at: expected a date and time such as "2026-12-03T09:00" (got "${input.at}")`);
  }
  const iso = /T\d{2}:\d{2}(Z|[+-]|$)/.test(at) ? at.replace(/T(\d{2}:\d{2})/, "T$1:00") : at;
  // croner reads a local ISO time in the timezone (a time in the spring gap moves forward an hour).
  const when = new Cron(iso, { paused: true, timezone }).nextRun(new Date(now - 1));
  if (!when) throw new Error(`at: ${at} (${timezone}) is in the past`);
  return when.getTime();
}

function describe(r: Reminder, now: number): Record<string, unknown> {
  const next =
    r.at ?? new Cron(r.cron!, { paused: true, timezone: r.timezone }).nextRun(new Date(now))?.getTime();
  return {
    id: r.id,
    text: r.text,
    ...(r.cron ? { cron: r.cron } : {}),
    next: next === undefined ? null : localTime(next, r.timezone),
  };
}

/** Active reminders one person may have at a time, unless the agent sets `reminders.maxPerUser`. */
const DEFAULT_MAX_PER_USER = 20;

export function remindTools(given: RemindToolsOptions): ToolDefinition[] {
  const options = { maxPerUser: DEFAULT_MAX_PER_USER, timezone: "UTC", ...given };
  const { store } = options;
  const now = options.now ?? Date.now;

  const remind = defineTool({
    name: "remind",
    description:
      "Set a reminder for the person you are talking to, delivered back into this chat. Give exactly one of: " +
      '`in` (a duration from now: "20m", "2h", "1d"), `at` (a local date and time: "2026-12-03T09:00"), or ' +
      '`cron` (a recurring 5-field pattern: "0 9 * * 1" is Mondays at 09:00). `timezone` (IANA) is where `at` ' +
      "and `cron` are read; leave it out to use the service's default. `text` is what to remind them of. " +
      "Call list_reminders first to learn the current date and time.",
    input: remindInput,
    async execute(input, ctx) {
      const where = whereOf(ctx);
      const timezone = input.timezone?.trim() || options.timezone;
      if (!validZone(timezone))
        throw new Error(`timezone: "${timezone}" is not an IANA timezone such as Europe/Berlin`);
      const given = [input.at, input.in, input.cron].filter((x) => x !== undefined && x.trim() !== "");
      if (given.length !== 1) throw new Error("give exactly one of at, in and cron");
      const t = now();
      let at: number | undefined;
      let cron: string | undefined;
      if (input.cron?.trim()) {
        cron = input.cron.trim().replace(/\s+/g, " ");
        if (cron.split(" ").length !== 5)
          throw new Error(`cron: expected 5 fields, minute first (got "${input.cron}")`);
        let runs: Date[];
        try {
          runs = new Cron(cron, { paused: true, timezone }).nextRuns(24, new Date(t));
        } catch (err) {
          throw new Error(`cron: "${cron}" is not a pattern that runs (${(err as Error).message})`);
        }
        if (runs.length === 0) throw new Error(`cron: "${cron}" never runs`);
        if (runs.some((r, i) => i > 0 && r.getTime() - runs[i - 1]!.getTime() < MIN_RECUR_MS)) {
          throw new Error(
            `cron: "${cron}" runs more often than hourly; a recurring reminder may run at most once an hour`,
          );
        }
      } else {
        at = dueOf(input, timezone, t);
        if (at < t + MIN_AHEAD_MS) throw new Error("the reminder would be due in less than 10 seconds");
        if (at > t + MAX_AHEAD_MS) throw new Error("a reminder can be set at most five years ahead");
      }
      const made = await store.create(
        {
          ...where,
          agent: options.agent,
          text: input.text,
          timezone,
          ...(at !== undefined ? { at } : { cron: cron! }),
        },
        options.maxPerUser,
      );
      if ("full" in made) {
        throw new Error(
          `you already have ${made.full} active reminders, the most allowed (${options.maxPerUser}); cancel one first`,
        );
      }
      return { set: true, timezone, ...describe(made, t) };
    },
  });

  const list = defineTool({
    name: "list_reminders",
    description:
      "List the active reminders the person you are talking to set in this chat (id, text, next time), and the current date and time.",
    input: v.object({}),
    async execute(_input, ctx) {
      const where = whereOf(ctx);
      const t = now();
      const mine = await store.ofUser(where.gateway, where.thread, where.userId);
      return {
        now: localTime(t, options.timezone),
        reminders: mine.map((r) => describe(r, t)),
      };
    },
  });

  const cancel = defineTool({
    name: "cancel_reminder",
    description: "Cancel one of the person's reminders by its id (from list_reminders).",
    input: v.object({ id: v.pipe(v.number(), v.integer()) }),
    async execute(input, ctx) {
      const where = whereOf(ctx);
      const mine = await store.ofUser(where.gateway, where.thread, where.userId);
      if (!mine.some((r) => r.id === input.id) || !(await store.end(input.id, "cancelled", where))) {
        throw new Error(`there is no active reminder ${input.id} of yours in this chat`);
      }
      return { cancelled: input.id };
    },
  });

  return [remind, list, cancel] as ToolDefinition[];
}
