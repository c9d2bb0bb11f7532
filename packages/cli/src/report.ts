import type { BuildError, BuildWarning } from "@agentsvc/config-schema";
import type { Printer } from "./io.js";

/** Prints every warning and error (stderr), one per line, each with its file and key path. */
export async function printIssues(
  print: Printer,
  errors: BuildError[],
  warnings: BuildWarning[],
): Promise<void> {
  if (!errors.length && !warnings.length) return;
  const { formatIssue } = await import("@agentsvc/config-schema");
  for (const w of warnings) print.err(`${print.style("err", "yellow", "warning")} ${formatIssue(w)}`);
  for (const e of errors) print.err(`${print.style("err", "red", "error")} ${formatIssue(e)}`);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (errors.length) {
    print.err(
      print.style("err", "red", `${plural(errors.length, "error")}, ${plural(warnings.length, "warning")}`),
    );
  }
}
