#!/usr/bin/env node
// Part of `pnpm lint`: no TypeScript source file over 400 lines in the session engine or the adapter
// kit (#42). A long file there holds more than one concern; split it into files named for what they
// hold. Lines are counted as `wc -l` does (a last line without a newline counts too).
// file-lines-allowed.json names files over the limit when the check was added, each with the count
// it may not grow past; remove an entry when its file is split.
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const MAX_LINES = 400;
export const CHECKED_DIRS = ["packages/session-core/src", "packages/adapter-kit/src"];

/** Files under `dirs` (relative to `root`) whose line count is over `max`, longest first. */
export function longFiles(root, dirs = CHECKED_DIRS, max = MAX_LINES) {
  const found = [];
  for (const dir of dirs) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
      const path = join(entry.parentPath, entry.name);
      const text = readFileSync(path, "utf8");
      const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
      if (lines > max) found.push({ file: relative(root, path), lines });
    }
  }
  return found.sort((a, b) => b.lines - a.lines);
}

// Run as a script (not imported). Not `import.meta.main`: Node before 24.2 leaves it undefined,
// which would skip the check and pass.
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  const root = join(import.meta.dirname, "../..");
  const allowedFile = join(import.meta.dirname, "file-lines-allowed.json");
  const allowed = existsSync(allowedFile) ? JSON.parse(readFileSync(allowedFile, "utf8")) : {};
  const found = longFiles(root);
  for (const f of found.filter((f) => f.lines <= (allowed[f.file] ?? 0)))
    console.log(`${f.file}: ${f.lines} lines, allowed by file-lines-allowed.json until it is split`);
  const long = found.filter((f) => f.lines > (allowed[f.file] ?? 0));
  if (long.length > 0) {
    console.error(
      `${long.length} source file(s) over ${MAX_LINES} lines (${CHECKED_DIRS.join(", ")}):\n` +
        long.map((f) => `  ${f.file}: ${f.lines}`).join("\n") +
        "\nSplit each into files named for what they hold.",
    );
    process.exit(1);
  }
  console.log(`file lines: no source file over ${MAX_LINES} lines in ${CHECKED_DIRS.join(", ")}`);
}
