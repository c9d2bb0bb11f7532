// `agentsvc usage`: what the model calls cost, from the cost ledger in the project's primary store
// (SQLite or PostgreSQL), summed by user, gateway, agent or model since a date or for the last N
// days. Works while the server runs; nothing here loads a gateway or the agent.
import type { UsageGroup } from "@agentsvc/chat-store";
import { type Command, EXIT_FAIL, EXIT_OK, EXIT_USAGE } from "../command.js";
import { escapeControls } from "../io.js";
import { openStore } from "./outbox.js";

const GROUPS: UsageGroup[] = ["user", "gateway", "agent", "model"];
const DAY_MS = 86_400_000;

export const usageCommand: Command = {
  name: "usage",
  summary: "Show tokens and cost of model calls from the cost ledger.",
  args: [],
  options: {
    dir: { type: "string", value: "<dir>", description: "the project folder (default: the current folder)" },
    by: {
      type: "string",
      value: "<user|gateway|agent|model>",
      description: "what to sum by (default: model)",
    },
    since: {
      type: "string",
      value: "<date|Nd>",
      description: "from this UTC date (2026-12-01) or the last N days (7d); default: this UTC month",
    },
    json: { type: "boolean", description: "one JSON object instead of the table" },
  },
  details: [
    "agentsvc usage                         this UTC month, by model",
    "agentsvc usage --by user --since 7d    the last 7 days, by user",
    "agentsvc usage --since 2026-11-01 --json",
    "Cost is in the currency of agentsvc.config prices, computed when each call was recorded; a model",
    "without a price counts 0. Gateway - is the chat page and the agent route. cached and cache-write are",
    "the parts of input read from and written to the provider's prompt cache.",
  ].join("\n"),
  async run(ctx) {
    const { values, print } = ctx;
    const fail = (text: string) => {
      print.err(`${print.style("err", "red", "error")} ${text}`);
      return EXIT_USAGE;
    };
    const by = (typeof values.by === "string" ? values.by : "model") as UsageGroup;
    if (!GROUPS.includes(by)) return fail(`--by: expected one of ${GROUPS.join(", ")} (got "${values.by}")`);
    const since = parseSince(typeof values.since === "string" ? values.since : undefined, Date.now());
    if (since === undefined)
      return fail(`--since: expected a date (2026-12-01) or a number of days (7d) (got "${values.since}")`);
    const opened = await openStore(ctx);
    if (!opened) return EXIT_FAIL;
    try {
      const rows = await opened.db.usageLedger.byGroup(by, since);
      const total = rows.reduce(
        (t, r) => ({
          calls: t.calls + r.calls,
          inputTokens: t.inputTokens + r.inputTokens,
          outputTokens: t.outputTokens + r.outputTokens,
          cachedInputTokens: t.cachedInputTokens + r.cachedInputTokens,
          cacheWriteInputTokens: t.cacheWriteInputTokens + r.cacheWriteInputTokens,
          reasoningTokens: t.reasoningTokens + r.reasoningTokens,
          costNanos: t.costNanos + r.costNanos,
        }),
        {
          calls: 0,
          inputTokens: 0,
          outputTokens: 0,
          cachedInputTokens: 0,
          cacheWriteInputTokens: 0,
          reasoningTokens: 0,
          costNanos: 0,
        },
      );
      const shape = ({ costNanos, ...r }: typeof total) => ({ ...r, cost: costNanos / 1e9 });
      if (values.json) {
        print.out(
          JSON.stringify(
            {
              by,
              since: new Date(since).toISOString(),
              rows: rows.map(({ key, ...r }) => ({ [by]: key, ...shape(r) })),
              total: shape(total),
            },
            null,
            2,
          ),
        );
        return EXIT_OK;
      }
      print.out(`since ${new Date(since).toISOString().slice(0, 10)} (UTC), by ${by}`);
      // cached and cache-write: the parts of input read from and written to the provider's prompt cache.
      const header = [by, "calls", "input", "cached", "cache-write", "output", "reasoning", "cost"];
      const cells = (key: string, r: typeof total) => [
        escapeControls(key || "-"),
        String(r.calls),
        String(r.inputTokens),
        String(r.cachedInputTokens),
        String(r.cacheWriteInputTokens),
        String(r.outputTokens),
        String(r.reasoningTokens),
        formatCost(r.costNanos),
      ];
      const body = [...rows.map((r) => cells(r.key, r)), cells("total", total)];
      const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
      // The first column reads left to right; numbers line up on the right.
      const line = (row: string[]) =>
        row
          .map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
          .join("  ")
          .trimEnd();
      print.out(print.style("out", "bold", line(header)));
      for (const b of body) print.out(line(b));
      return EXIT_OK;
    } finally {
      await opened.close();
    }
  },
};

/** `7d` (the last 7 days from now), a UTC date `2026-12-01`, or nothing (the current UTC month). */
function parseSince(value: string | undefined, now: number): number | undefined {
  if (value === undefined) {
    const d = new Date(now);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
  const days = /^(\d{1,4})d$/.exec(value);
  if (days) return now - Number(days[1]) * DAY_MS;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const at = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(at) ? undefined : at;
}

/** Cost with 4 decimals (a cent's hundredth), enough for per-call prices. */
function formatCost(nanos: number): string {
  return (nanos / 1e9).toFixed(4);
}
