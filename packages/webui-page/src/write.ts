import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { PageEntry } from "./entry.js";
import { normalisePath } from "./entry.js";
import { renderPage } from "./page.js";

/** Writes `<outDir>/<path>/index.html` and returns the file path. */
export async function writePage(outDir: string, entry: PageEntry, themeCss: string): Promise<string> {
  const html = renderPage(entry, themeCss);
  const dir = join(outDir, ...normalisePath(entry.path).split("/").filter(Boolean));
  await mkdir(dir, { recursive: true });
  const file = join(dir, "index.html");
  await writeFile(file, html, "utf8");
  return file;
}
