// The first word of a verb with sub-actions (`outbox list|retry|drop`, `pairing …`, `schedules …`):
// one place for the usage error's wording, so every such verb reads and escapes it alike.
import { type CommandContext, EXIT_USAGE } from "./command.js";
import { escapeControls } from "./io.js";

/** Prints a command-line error and returns its exit code (2, a bad command line, unless given). */
export function usageError(print: CommandContext["print"]): (text: string, code?: number) => number {
  return (text, code = EXIT_USAGE) => {
    print.err(`${print.style("err", "red", "error")} ${text}`);
    return code;
  };
}

/** The action named first on the command line, or undefined once the usage error is printed. */
export function readAction<A extends string>(ctx: CommandContext, actions: readonly A[]): A | undefined {
  const action = ctx.positionals[0];
  if (actions.includes(action as A)) return action as A;
  const named = `${actions.slice(0, -1).join(", ")} or ${actions[actions.length - 1]}`;
  const got = action === undefined ? "nothing" : `"${escapeControls(action)}"`;
  usageError(ctx.print)(`expected ${named} (got ${got})`);
  return undefined;
}
