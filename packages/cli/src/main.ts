import { didYouMean } from "@agentsvc/config-schema/did-you-mean";
import { type Command, EXIT_FAIL, EXIT_OK, EXIT_USAGE, runCommand } from "./command.js";
import { commands } from "./commands/index.js";
import { type CliIO, defaultIO, printer } from "./io.js";
import { CLI_VERSION } from "./version.js";

function globalHelp(list: Command[]): string {
  const width = Math.max(...list.map((c) => c.name.length));
  return [
    "Usage: agentsvc <command> [options]",
    "",
    "Commands:",
    ...list.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Options:",
    "  -h, --help     show help (also `agentsvc <command> --help`)",
    "  -v, --version  print the version",
  ].join("\n");
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[], io: Partial<CliIO> = {}): Promise<number> {
  const full: CliIO = { ...defaultIO(), ...io };
  const print = printer(full);
  const [first, ...rest] = argv;
  if (first === undefined) {
    print.err(globalHelp(commands));
    return EXIT_USAGE;
  }
  const unknown = (word: string) => {
    const names = commands.map((c) => c.name);
    const what = word.startsWith("-") ? "option" : "command";
    const known = what === "option" ? ["--help", "--version"] : names;
    print.err(
      `${print.style("err", "red", "error")} unknown ${what} ${JSON.stringify(word)}${didYouMean(word, known)} (commands: ${names.join(", ")}; options: --help, --version)`,
    );
    return EXIT_USAGE;
  };
  if (first === "--help" || first === "-h" || first === "help") {
    const asked = first === "help" ? rest[0] : undefined;
    if (asked !== undefined) {
      const target = commands.find((c) => c.name === asked);
      return target ? runCommand(target, ["--help"], full, print) : unknown(asked);
    }
    print.out(globalHelp(commands));
    return EXIT_OK;
  }
  if (first === "--version" || first === "-v") {
    print.out(CLI_VERSION);
    return EXIT_OK;
  }
  const cmd = commands.find((c) => c.name === first);
  if (!cmd) return unknown(first);
  try {
    return await runCommand(cmd, rest, full, print);
  } catch (err) {
    print.err(
      `${print.style("err", "red", "error")} agentsvc ${cmd.name}: ${(err as Error).stack ?? String(err)}`,
    );
    return EXIT_FAIL;
  }
}
