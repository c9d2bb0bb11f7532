// `agentsvc outbox`: the replies still waiting (pending) and those given up on (dead), with their
// reason; put dead ones back in the queue or drop one. Works on the project's primary store, SQLite
// or PostgreSQL, while the server runs: a requeued piece is picked up by the running sender's idle
// poll (within 5 s). Nothing here loads a gateway or the agent.
import { resolve } from "node:path";
import type { ChatDb, OutboxRecord } from "@agentsvc/chat-store";
import type { Project } from "@agentsvc/config-schema";
import { type Command, type CommandContext, EXIT_FAIL, EXIT_OK, EXIT_USAGE } from "../command.js";
import { escapeControls } from "../io.js";
import { readAction, usageError } from "../verb-action.js";
import { printIssues } from "../report.js";

const ACTIONS = ["list", "retry", "drop"] as const;

export const outboxCommand: Command = {
  name: "outbox",
  summary: "List pending and dead-lettered replies; retry or drop them.",
  args: ["<list|retry|drop>", "[id]"],
  options: {
    dir: { type: "string", value: "<dir>", description: "the project folder (default: the current folder)" },
    gateway: {
      type: "string",
      value: "<name>",
      description: "only this gateway's pieces (list, retry --all-dead)",
    },
    dead: { type: "boolean", description: "list: only dead-lettered pieces" },
    "all-dead": {
      type: "boolean",
      description: "retry: every dead-lettered piece (of --gateway when given)",
    },
    json: { type: "boolean", description: "list: one JSON array instead of the table" },
  },
  details: [
    "agentsvc outbox list [--gateway g] [--dead] [--json]   pending and dead pieces, oldest first",
    "agentsvc outbox retry <id> | --all-dead [--gateway g]  back in the queue: due now, attempts from 0",
    "agentsvc outbox drop <id>                              delete a pending or dead piece for good",
    "Safe while the server runs: its sender picks a retried piece up within 5 s. Dropping a pending",
    "piece whose send is in flight does not stop that send.",
  ].join("\n"),
  async run(ctx) {
    const { values, positionals, print } = ctx;
    const fail = usageError(print);
    const action = readAction(ctx, ACTIONS);
    if (action === undefined) return EXIT_USAGE;
    const id = positionals[1] === undefined ? undefined : Number(positionals[1]);
    if (id !== undefined && (!Number.isInteger(id) || id <= 0))
      return fail(`<id>: expected a positive integer (got "${positionals[1]}")`);
    if (action === "list" && id !== undefined) return fail("list takes no <id>");
    if (action === "retry" && (id === undefined) === !values["all-dead"])
      return fail("retry takes either an <id> or --all-dead");
    if (action === "drop" && id === undefined) return fail("drop needs the <id> of a piece");

    const opened = await openStore(ctx);
    if (!opened) return EXIT_FAIL;
    try {
      const gateway = typeof values.gateway === "string" ? values.gateway : undefined;
      const outbox = opened.db.outbox;
      if (action === "list") {
        const rows = await outbox.browse({
          ...(gateway ? { gateway } : {}),
          statuses: values.dead ? ["dead"] : ["pending", "dead"],
        });
        if (values.json) print.out(JSON.stringify(rows.map(forJson), null, 2));
        else printTable(ctx, rows);
        return EXIT_OK;
      }
      if (action === "retry" && id === undefined) {
        const ids = await outbox.requeueDead(gateway ? { gateway } : {});
        print.out(
          `${ids.length} dead piece${ids.length === 1 ? "" : "s"} back in the queue${ids.length ? `: ${ids.join(", ")}` : ""}`,
        );
        return EXIT_OK;
      }
      const piece = await outbox.get(id as number);
      if (!piece) return fail(`no outbox piece ${id} in ${opened.db.file}`, EXIT_FAIL);
      if (action === "retry") {
        if (!(await outbox.requeue(piece.id)))
          return fail(`piece ${piece.id} is ${piece.status}, not dead: nothing to retry`, EXIT_FAIL);
        print.out(`piece ${piece.id} (${where(piece)}) back in the queue`);
        return EXIT_OK;
      }
      if (!(await outbox.drop(piece.id)))
        return fail(`piece ${piece.id} was sent already: nothing to drop`, EXIT_FAIL);
      print.out(`piece ${piece.id} (${where(piece)}, ${piece.status}) dropped`);
      return EXIT_OK;
    } finally {
      await opened.close();
    }
  },
};

/** The project's primary store, as the server opens it; undefined (reported) when it cannot be opened. */
export async function openStore(
  ctx: CommandContext,
): Promise<{ db: ChatDb; project: Project; close(): Promise<void> } | undefined> {
  const dir = resolve(ctx.io.cwd, typeof ctx.values.dir === "string" ? ctx.values.dir : ".");
  const { loadProject } = await import("@agentsvc/config-schema");
  const loaded = await loadProject(dir);
  await printIssues(ctx.print, loaded.ok ? [] : loaded.errors, []);
  if (!loaded.ok) return undefined;
  const { createLogger, StoreSet } = await import("@agentsvc/server");
  // The same store the server opens (the config's `store`, else the first webui's, else data/agentsvc.db).
  const logger = await createLogger({ format: "json", level: "silent" });
  const stores = new StoreSet(loaded.project, logger, ctx.io.env);
  try {
    return { db: await stores.primary(), project: loaded.project, close: () => stores.close() };
  } catch (error) {
    await stores.close();
    ctx.print.err(`${ctx.print.style("err", "red", "error")} ${(error as Error).message}`);
    return undefined;
  }
}

/** Gateway and thread of a piece, escaped: an e-mail sender chooses its thread id (the Message-ID). */
function where(piece: OutboxRecord): string {
  return escapeControls(`${piece.gateway} ${piece.thread}`);
}

function forJson(row: OutboxRecord) {
  return {
    id: row.id,
    gateway: row.gateway,
    thread: row.thread,
    kind: row.kind,
    status: row.status,
    attempts: row.attempts,
    reason: row.lastError,
    createdAt: new Date(row.createdAt).toISOString(),
    nextAttemptAt: row.status === "pending" ? new Date(row.nextAttemptAt).toISOString() : null,
    finishedAt: row.finishedAt === null ? null : new Date(row.finishedAt).toISOString(),
  };
}

function printTable({ print }: CommandContext, rows: OutboxRecord[]): void {
  if (rows.length === 0) {
    print.out("no pending or dead pieces");
    return;
  }
  const header = ["id", "gateway", "thread", "kind", "status", "attempts", "created", "reason"];
  // Every cell escaped: the thread id and the reason come from outside (a sender, a platform).
  const body = rows.map((r) =>
    [
      String(r.id),
      r.gateway,
      r.thread,
      r.kind,
      r.status,
      String(r.attempts),
      new Date(r.createdAt).toISOString().slice(0, 19).replace("T", " "),
      (r.lastError ?? "").replace(/[ \n\r\t]+/g, " ").slice(0, 120),
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
