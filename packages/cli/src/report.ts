import type { BuildError, BuildWarning } from "@agentsvc/config-schema";
import { codeFrame } from "./code-frame.js";
import type { Printer } from "./io.js";

/** Prints every warning and error (stderr), one per line, each with its file and key path. */
export async function printIssues(
  print: Printer,
  errors: BuildError[],
  warnings: BuildWarning[],
  /** The project folder: a syntax error is followed by its line and a caret when given. */
  root?: string,
): Promise<void> {
  if (!errors.length && !warnings.length) return;
  const { formatIssue } = await import("@agentsvc/config-schema");
  for (const w of warnings) print.err(`${print.style("err", "yellow", "warning")} ${formatIssue(w)}`);
  for (const e of errors) {
    print.err(`${print.style("err", "red", "error")} ${formatIssue(e)}`);
    if (root && !e.path && e.message.startsWith("syntax error")) {
      for (const line of codeFrame(root, e.file)) print.err(line);
    }
  }
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (errors.length) {
    print.err(
      print.style("err", "red", `${plural(errors.length, "error")}, ${plural(warnings.length, "warning")}`),
    );
  }
}
