// Tables for platforms without them: the cells' plain text in columns padded to line up in a
// monospace block (Telegram <pre>, Slack and Discord code fences).
import type { Table } from "mdast";
import { toString as plain } from "mdast-util-to-string";

export function tableText(table: Table): string {
  const rows = table.children.map((row) => row.children.map((cell) => plain(cell).replace(/\s+/g, " ")));
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  const line = (row: string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join(" | ")
      .trimEnd();
  const [head, ...body] = rows;
  if (!head) return "";
  return [line(head), widths.map((w) => "-".repeat(Math.max(w, 1))).join("-+-"), ...body.map(line)].join(
    "\n",
  );
}
