// `agentsvc pairing`: the pairing codes unknown senders got under `dmPolicy: pairing`, and the
// senders approved so far. Works on the project's primary store (SQLite or PostgreSQL) while the
// server runs: an approval or a revocation holds for the sender's next message, on every instance.
import type { ApprovedSender, PairingRecord } from "@agentsvc/chat-store";
import { type Command, type CommandContext, EXIT_FAIL, EXIT_OK, EXIT_USAGE } from "../command.js";
import { escapeControls } from "../io.js";
import { readAction, usageError } from "../verb-action.js";
import { openStore } from "./outbox.js";

const ACTIONS = ["list", "approve", "deny", "revoke"] as const;

export const pairingCommand: Command = {
  name: "pairing",
  summary: "List, approve or deny pairing codes; revoke an approved sender.",
  args: ["<list|approve|deny|revoke>", "[code|gateway]", "[user]"],
  options: {
    dir: { type: "string", value: "<dir>", description: "the project folder (default: the current folder)" },
    json: { type: "boolean", description: "list: one JSON object instead of the tables" },
  },
  details: [
    "agentsvc pairing list [--json]            pending codes (not expired) and approved senders",
    "agentsvc pairing approve <code>           the code's sender may write from their next message on",
    "agentsvc pairing deny <code>              refuse it; the sender gets no new code until it expires",
    "agentsvc pairing revoke <gateway> <user>  an approved sender is refused again",
    "Senders listed in allowFrom are allowed by the config itself: edit it to remove them.",
  ].join("\n"),
  async run(ctx) {
    const { positionals, print } = ctx;
    const fail = usageError(print);
    const action = readAction(ctx, ACTIONS);
    if (action === undefined) return EXIT_USAGE;
    const args = positionals.slice(1);
    const wanted = action === "list" ? 0 : action === "revoke" ? 2 : 1;
    if (args.length !== wanted) {
      const usage = { list: "list takes no argument", approve: "approve <code>", deny: "deny <code>" };
      return fail(action === "revoke" ? "revoke <gateway> <user>" : usage[action as keyof typeof usage]);
    }
    const opened = await openStore(ctx);
    if (!opened) return EXIT_FAIL;
    try {
      const access = opened.db.senderAccess;
      const now = Date.now();
      if (action === "list") {
        const [codes, approved] = await Promise.all([access.pendingCodes(now), access.approvedSenders()]);
        if (ctx.values.json)
          print.out(
            JSON.stringify({ pending: codes.map(codeJson), approved: approved.map(approvedJson) }, null, 2),
          );
        else printLists(ctx, codes, approved);
        return EXIT_OK;
      }
      if (action === "revoke") {
        const [gateway, user] = args as [string, string];
        if (!(await access.revoke(gateway, user)))
          return fail(
            `${escapeControls(user)} is not an approved sender of ${escapeControls(gateway)}`,
            EXIT_FAIL,
          );
        print.out(
          `revoked ${escapeControls(user)} on ${escapeControls(gateway)}: their next message is refused`,
        );
        return EXIT_OK;
      }
      const code = (args[0] as string).trim().toUpperCase();
      const rec = action === "approve" ? await access.approve(code, now) : await access.deny(code, now);
      if (!rec)
        return fail(
          `no pending pairing code ${escapeControls(code)} (expired, decided, or mistyped)`,
          EXIT_FAIL,
        );
      print.out(
        action === "approve"
          ? `approved ${who(rec)} on ${escapeControls(rec.gateway)}: their next message is answered`
          : `denied ${who(rec)} on ${escapeControls(rec.gateway)}`,
      );
      return EXIT_OK;
    } finally {
      await opened.close();
    }
  },
};

/** The sender's id and the name they gave, escaped: both come from the platform. */
function who(rec: { sender: string; displayName?: string | null }): string {
  return escapeControls(rec.displayName ? `${rec.sender} (${rec.displayName})` : rec.sender);
}

const iso = (ms: number) => new Date(ms).toISOString();

function codeJson(c: PairingRecord) {
  return {
    code: c.code,
    gateway: c.gateway,
    user: c.sender,
    name: c.displayName,
    createdAt: iso(c.createdAt),
    expiresAt: iso(c.expiresAt),
  };
}

function approvedJson(a: ApprovedSender) {
  return { gateway: a.gateway, user: a.sender, approvedAt: iso(a.approvedAt), code: a.code };
}

function printLists({ print }: CommandContext, codes: PairingRecord[], approved: ApprovedSender[]): void {
  const short = (ms: number) => iso(ms).slice(0, 16).replace("T", " ");
  table(
    print,
    "pending codes",
    ["code", "gateway", "user", "name", "expires"],
    codes.map((c) => [c.code, c.gateway, c.sender, c.displayName ?? "", short(c.expiresAt)]),
  );
  table(
    print,
    "approved senders",
    ["gateway", "user", "approved", "code"],
    approved.map((a) => [a.gateway, a.sender, short(a.approvedAt), a.code ?? ""]),
  );
}

function table(print: CommandContext["print"], title: string, header: string[], rows: string[][]): void {
  if (rows.length === 0) {
    print.out(`no ${title}`);
    return;
  }
  // Every cell escaped: ids and names come from the platform.
  const body = rows.map((r) => r.map(escapeControls));
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] as number))
      .join("  ")
      .trimEnd();
  print.out(print.style("out", "bold", title));
  print.out(print.style("out", "bold", line(header)));
  for (const b of body) print.out(line(b));
}
