// The chat page's compressed copies, made once when the page is mounted (the page is static): a
// browser gets brotli or gzip as its Accept-Encoding allows, so a phone downloads about a third of
// the bytes and the server compresses nothing per request.
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

export type PageCoding = "br" | "gzip";
/** The codings pageRepresentations makes, in the server's order of preference. */
export const PAGE_CODINGS: readonly PageCoding[] = ["br", "gzip"];

/** One representation of the page: its bytes, its content coding and its own strong ETag. */
export interface PageRepresentation {
  coding?: PageCoding;
  body: string | Uint8Array<ArrayBuffer>;
  etag: string;
}

export interface PageCopies {
  identity: PageRepresentation;
  /** Brotli then gzip: the server's order of preference. */
  encoded: Map<PageCoding, PageRepresentation>;
}

/** The identity page and its brotli and gzip copies. */
export async function pageRepresentations(html: string, etag: string): Promise<PageCopies> {
  const bytes = Buffer.from(html);
  const [br, gz] = await Promise.all([
    brotli(bytes, {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
    gzipped(bytes, { level: 9 }),
  ]);
  // Another content coding is another representation: it gets its own validator (RFC 9110 8.8.3).
  return {
    identity: { body: html, etag },
    encoded: new Map<PageCoding, PageRepresentation>([
      ["br", { coding: "br", body: Uint8Array.from(br), etag: tagged(etag, "br") }],
      ["gzip", { coding: "gzip", body: Uint8Array.from(gz), etag: tagged(etag, "gz") }],
    ]),
  };
}

/** `"abc"` -> `"abc-br"`. */
function tagged(etag: string, suffix: string): string {
  return etag.endsWith('"') ? `${etag.slice(0, -1)}-${suffix}"` : `${etag}-${suffix}`;
}

/**
 * The coding to send for an `Accept-Encoding` header: the acceptable one (q > 0, named or by `*`)
 * with the highest q, the server's order breaking ties; undefined for the identity page. (Hono's
 * `accepts` breaks ties by the header's order, so Chromium's "gzip, deflate, br" would never get
 * brotli, and it ignores `*`.)
 */
export function chooseCoding(
  header: string | undefined,
  offered: readonly PageCoding[],
): PageCoding | undefined {
  if (!header) return undefined;
  const q = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (!name) continue;
    const weight = params.find((p) => p.startsWith("q="));
    const value = weight === undefined ? 1 : Number(weight.slice(2));
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  let best: { coding: PageCoding; q: number } | undefined;
  for (const coding of offered) {
    const weight = q.get(coding) ?? q.get("*") ?? 0;
    if (weight > 0 && (!best || weight > best.q)) best = { coding, q: weight };
  }
  return best?.coding;
}

/** Whether an `If-None-Match` list names this ETag (or is `*`). */
export function matchesNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t === etag || t === `W/${etag}`;
  });
}
