import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
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
 * Serves the chat page built at start (`html`) as `<path>/index.html`, with its ETag and the
 * hash-based CSP, compressed once when a request first asks for a coding (or its copies saved by an
 * earlier start of the same page read back). `<path>` and `<path>/` redirect to it. Never gated, so
 * the page can prompt for a key. The page is written to `<buildDir>/<path>/index.html` beside
 * serving it, not before: no answer waits on that disk write (#45); its compressed copies are saved
 * next to it once it is there. A folder that cannot be written is reported through `onWriteError`
 * and the page is served all the same. Returns what resolves once the write and any copies being
 * made are done: shutdown waits for it.
 */
export function mountPage(
  app: Hono,
  mountPath: string,
  buildDir: string,
  html: string,
  headersFor: (html: string) => PageHeaders,
  onWriteError: (error: unknown, file: string) => void,
): () => Promise<void> {
  const file = join(buildDir, mountPath, "index.html");
  const written = writeBuilt(file, html).catch((error: unknown) => onWriteError(error, file));
  // The CSP's script and style hashes and the ETag (SHA-256 over the ~70 KB page, ~1.5 ms) at the
  // page's first request: a start answers its agent route without them (#45.1).
  let headers: PageHeaders | undefined;
  const headersOf = () => (headers ??= headersFor(html));
  // Made when first asked for, not at start: brotli at its best quality is most of the CPU a first
  // start would spend beside its first answer (#45), and a restart reads the saved copies back. A
  // request wanting a coding waits for the copies; one for the plain page never does.
  let copies: Promise<PageCopies> | undefined;
  const copiesOf = () =>
    (copies ??= written.then(() => savedPageRepresentations(file, html, headersOf().ETag)));
  const indexPath = `${mountPath}/index.html`;
  app.get(indexPath, async (c) => {
    const coding = chooseCoding(c.req.header("accept-encoding"), PAGE_CODINGS);
    const security = headersOf();
    const identity: PageRepresentation = { body: html, etag: security.ETag };
    // A failure is answered per request (500).
    const chosen = (coding && (await copiesOf()).encoded.get(coding)) || identity;
    // Caches keep one copy per coding.
    const common = { ETag: chosen.etag, Vary: "Accept-Encoding" };
    if (matchesNoneMatch(c.req.header("if-none-match"), chosen.etag)) return c.body(null, 304, common);
    return c.body(chosen.body, 200, {
      ...security,
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
    await written;
    await copies?.catch(() => {});
  };
}

async function writeBuilt(file: string, html: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, html, "utf8");
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
