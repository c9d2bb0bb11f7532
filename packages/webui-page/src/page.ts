import { CLIENT_CSS, CLIENT_EARLY_JS, CLIENT_JS } from "./client.gen.js";
import type { PageEntry } from "./entry.js";
import { assemblePage } from "./render.js";

/**
 * The chat page for one webui entry: one HTML file with all CSS and JS inlined. `themeCss` is the
 * project's theme file (inlined last, so it wins). Throws on an unknown theme token, an unsafe
 * token value, a bad icon reference or a theme file containing `</style`.
 */
export function renderPage(entry: PageEntry, themeCss = ""): string {
  return assemblePage(entry, themeCss, { js: CLIENT_JS, css: CLIENT_CSS, early: CLIENT_EARLY_JS });
}
