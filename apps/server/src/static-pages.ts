import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Hono } from "hono";
import {
  chooseCoding,
  matchesNoneMatch,
  PAGE_CODINGS,
  type PageCopies,
  type PageRepresentation,
  savedPageRepresentations,
} from "./page-encodings.js";

export interface PageHeaders {
  "Content-Security-Policy": string;
  ETag: string;
}

/**
 * Serves a built `<path>/index.html` as a static file: read once at start, with its ETag and the
 * hash-based CSP, and compressed once when a request first asks for a coding (or its copies saved by
 * an earlier start of the same page read back). `<path>` and `<path>/` redirect to it. Never gated,
 * so the page can prompt for a key. Returns what resolves once copies being made are made (at once
 * when none are): shutdown waits for it.
 */
export async function mountPage(
  app: Hono,
  mountPath: string,
  buildDir: string,
  headersFor: (html: string) => PageHeaders,
): Promise<() => Promise<void>> {
  const file = join(buildDir, mountPath, "index.html");
  const html = await readFile(file, "utf8").catch(() => {
    throw new Error(`${file}: the page is missing; run \`agentsvc build\` (start builds it for you)`);
  });
  const headers = headersFor(html);
  // Made when first asked for, not at start: brotli at its best quality is most of the CPU a first
  // start would spend beside its first answer (#45), and a restart reads the saved copies back. A
  // request wanting a coding waits for the copies; one for the plain page never does.
  const identity: PageRepresentation = { body: html, etag: headers.ETag };
  let copies: Promise<PageCopies> | undefined;
  const copiesOf = () => (copies ??= savedPageRepresentations(file, html, headers.ETag));
  const indexPath = `${mountPath}/index.html`;
  app.get(indexPath, async (c) => {
    const coding = chooseCoding(c.req.header("accept-encoding"), PAGE_CODINGS);
    // A failure is answered per request (500).
    const chosen = (coding && (await copiesOf()).encoded.get(coding)) || identity;
    // Caches keep one copy per coding.
    const common = { ETag: chosen.etag, Vary: "Accept-Encoding" };
    if (matchesNoneMatch(c.req.header("if-none-match"), chosen.etag)) return c.body(null, 304, common);
    return c.body(chosen.body, 200, {
      ...headers,
      ...common,
      "Content-Type": "text/html; charset=UTF-8",
      ...(chosen.coding ? { "Content-Encoding": chosen.coding } : {}),
      "Cache-Control": "no-cache",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
    });
  });
  app.get(mountPath, (c) => c.redirect(indexPath, 302));
  app.get(`${mountPath}/`, (c) => c.redirect(indexPath, 302));
  return async () => {
    await copies?.catch(() => {});
  };
}

/**
 * `/favicon.ico` for clients that ask for it although the page declares its own icon (bookmarks,
 * feed readers, older browsers): the built-in icon as SVG, which browsers take whatever the name.
 * Registered once per page; Hono answers with the first.
 */
export function mountFavicon(app: Hono, svg: string): void {
  app.get("/favicon.ico", (c) =>
    c.body(svg, 200, {
      "Content-Type": "image/svg+xml",
      "Cache-Control": "public, max-age=86400",
      "X-Content-Type-Options": "nosniff",
    }),
  );
}
