import { readFileSync } from "node:fs";
import { join } from "node:path";

const AT = /^(.+):(\d+):(\d+)$/;

/**
 * The line a `file:line:column` issue points at, with a caret under the column (both from 1), as
 * two lines to print under the error; [] when the file or the line cannot be read.
 */
export function codeFrame(root: string, where: string): string[] {
  const m = AT.exec(where);
  if (!m) return [];
  const [, file, lineText, columnText] = m as unknown as [string, string, string, string];
  const line = Number(lineText);
  const column = Number(columnText);
  let text: string | undefined;
  try {
    text = readFileSync(join(root, file), "utf8").split(/\r?\n/)[line - 1];
  } catch {
    return [];
  }
  if (text === undefined || column < 1 || column > text.length + 1) return [];
  // Tabs stay tabs so the caret lines up in any terminal's tab width.
  const lead = text.slice(0, column - 1).replace(/[^\t]/g, " ");
  const gutter = String(line).padStart(5);
  return [`${gutter} | ${text}`, `${" ".repeat(gutter.length)} | ${lead}^`];
}
