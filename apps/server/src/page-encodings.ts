// The chat page's compressed copies, made once when the page is mounted (the page is static): a
// browser gets brotli or gzip as its Accept-Encoding allows, so a phone downloads about a third of
// the bytes and the server compresses nothing per request. They are saved beside the built page, so
// a restart with the same page reads them instead of compressing again (brotli at its best quality
// is most of the CPU a start spends after listening, #45).
import { readFile, rename, writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import { brotliCompress, brotliDecompress, constants, gunzip, gzip } from "node:zlib";

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);
const unbrotli = promisify(brotliDecompress);
const gunzipped = promisify(gunzip);

export type PageCoding = "br" | "gzip";
/** The codings savedPageRepresentations makes, in the server's order of preference. */
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

/**
 * The identity page and its copies for the page built at `file`: the copies an earlier start saved
 * beside it (`<file>.br`, `<file>.gz`) when both still decode to exactly this page, else copies made
 * now and saved there for the next start (written under another name, then renamed, so a start never
 * reads a half-written one; a folder that cannot be written only costs the next start the compression).
 */
export async function savedPageRepresentations(
  file: string,
  html: string,
  etag: string,
): Promise<PageCopies> {
  const bytes = Buffer.from(html);
  const saved = await readSaved(file, bytes);
  if (saved) return representations(html, etag, saved);
  const made = await compress(bytes);
  await Promise.all([save(`${file}.br`, made.br), save(`${file}.gz`, made.gz)]).catch(() => {});
  return representations(html, etag, made);
}

interface Compressed {
  br: Uint8Array;
  gz: Uint8Array;
}

async function compress(bytes: Buffer): Promise<Compressed> {
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
  return { br, gz };
}

/** Saved copies that decode to `bytes` (decoding stops past its length), else undefined. */
async function readSaved(file: string, bytes: Buffer): Promise<Compressed | undefined> {
  try {
    const [br, gz] = await Promise.all([readFile(`${file}.br`), readFile(`${file}.gz`)]);
    const limit = { maxOutputLength: bytes.length + 1 };
    const [plainBr, plainGz] = await Promise.all([unbrotli(br, limit), gunzipped(gz, limit)]);
    return plainBr.equals(bytes) && plainGz.equals(bytes) ? { br, gz } : undefined;
  } catch {
    // Missing, unreadable, corrupt or longer than the page: made again.
    return undefined;
  }
}

async function save(path: string, data: Uint8Array): Promise<void> {
  const partial = `${path}.${process.pid}.tmp`;
  await writeFile(partial, data);
  await rename(partial, path);
}

function representations(html: string, etag: string, { br, gz }: Compressed): PageCopies {
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
