import { parseArgs } from "node:util";
import { didYouMean } from "@agentsvc/config-schema/did-you-mean";
import type { CliIO, Printer } from "./io.js";

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** Shown in --help, e.g. "<dir>". */
  value?: string;
  description: string;
}

export interface CommandContext {
  /** Parsed options (without --help). */
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  io: CliIO;
  print: Printer;
}

/**
 * One verb of `agentsvc`. Each lives in its own file under src/commands/ and is listed once in
 * src/commands/index.ts; the framework adds --help and rejects unknown options.
 */
export interface Command {
  name: string;
  summary: string;
  /** Positional arguments as shown in usage, e.g. ["[dir]"]. */
  args: string[];
  options: Record<string, OptionSpec>;
  /** Longer help text printed under the usage line. */
  details?: string;
  run(ctx: CommandContext): Promise<number>;
}

/** Exit codes: 0 ok, 1 the project (or the task) failed, 2 the command line was wrong. */
export const EXIT_OK = 0;
export const EXIT_FAIL = 1;
export const EXIT_USAGE = 2;
/** `start` could not listen on its port (taken, or privileged): `dev` stops instead of waiting for edits. */
export const EXIT_PORT = 3;

export function commandHelp(cmd: Command): string {
  const lines = [
    `Usage: agentsvc ${cmd.name}${cmd.args.length ? ` ${cmd.args.join(" ")}` : ""} [options]`,
    "",
    cmd.summary,
  ];
  if (cmd.details) lines.push("", cmd.details);
  lines.push("", "Options:");
  const rows = Object.entries(cmd.options).map(([name, o]) => [
    `${o.short ? `-${o.short}, ` : "    "}--${name}${o.value ? ` ${o.value}` : ""}`,
    o.description,
  ]);
  rows.push(["-h, --help", "show this help"]);
  const width = Math.max(...rows.map((r) => r[0]!.length));
  for (const [left, right] of rows) lines.push(`  ${left!.padEnd(width)}  ${right}`);
  return lines.join("\n");
}

/** Node's parser messages, said for this CLI: which option, and the nearest known one. */
function parseError(cmd: Command, err: Error & { code?: string }): string {
  const quoted = /'([^']+)'/.exec(err.message)?.[1] ?? "";
  const longs = [...Object.keys(cmd.options), "help"].map((n) => `--${n}`);
  if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    return `unknown option ${quoted} for agentsvc ${cmd.name}${didYouMean(quoted, longs)} (options: ${longs.join(", ")})`;
  }
  if (err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const name = /--[\w-]+/.exec(quoted)?.[0] ?? quoted;
    return /argument missing/.test(err.message)
      ? `option ${name} needs a value (${name} <value> or ${name}=<value>)`
      : `option ${name} takes no value`;
  }
  return err.message;
}

export async function runCommand(cmd: Command, argv: string[], io: CliIO, print: Printer): Promise<number> {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    help: { type: "boolean", short: "h" },
  };
  for (const [name, o] of Object.entries(cmd.options)) {
    options[name] = o.short ? { type: o.type, short: o.short } : { type: o.type };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    print.err(`${print.style("err", "red", "error")} ${parseError(cmd, err as Error & { code?: string })}`);
    print.err(`Run \`agentsvc ${cmd.name} --help\` for usage.`);
    return EXIT_USAGE;
  }
  const { help, ...values } = parsed.values as Record<string, string | boolean | undefined>;
  if (help) {
    print.out(commandHelp(cmd));
    return EXIT_OK;
  }
  const maxArgs = cmd.args.length;
  if (parsed.positionals.length > maxArgs) {
    print.err(
      `${print.style("err", "red", "error")} agentsvc ${cmd.name} takes at most ${maxArgs} argument(s) (got ${parsed.positionals.map((p) => JSON.stringify(p)).join(" ")})`,
    );
    return EXIT_USAGE;
  }
  return cmd.run({ values, positionals: parsed.positionals, io, print });
}
