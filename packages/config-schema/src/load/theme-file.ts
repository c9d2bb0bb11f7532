import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { IssueSink } from "../issues.js";

/**
 * Reads a webui entry's theme CSS. A missing default file is fine; a missing file the entry names
 * explicitly is an error. A literal `</style` (any case) would close the page's style block early.
 */
export function readThemeFile(
  root: string,
  themeFile: string,
  explicit: boolean,
  entryFile: string,
  sink: IssueSink,
): string | undefined {
  const abs = join(root, themeFile);
  if (!existsSync(abs)) {
    if (explicit)
      sink.error(entryFile, "themeFile", "must name an existing CSS file", `"${themeFile}" (not found)`);
    return undefined;
  }
  if (!statSync(abs).isFile()) {
    sink.error(entryFile, "themeFile", "must name a CSS file", `"${themeFile}" (a folder)`);
    return undefined;
  }
  const css = readFileSync(abs, "utf8");
  const lines = css.split("\n");
  let bad = false;
  lines.forEach((line, i) => {
    const m = /<\/style/i.exec(line);
    if (m) {
      bad = true;
      sink.error(
        themeFile,
        `line ${i + 1}`,
        `must not contain a literal "</style" (it would end the page's style block; used by ${entryFile})`,
        JSON.stringify(line.slice(m.index, m.index + 8)),
      );
    }
  });
  return bad ? undefined : css;
}
