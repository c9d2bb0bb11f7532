// Splits a reply into platform-sized pieces, preferring paragraph, then line, then word boundaries.

/**
 * Splits `text` into pieces of at most `limit` UTF-16 code units (what platforms count).
 * Each cut is made at the last paragraph break (`\n\n`) inside the window, else the last line
 * break, else the last space, else hard at `limit` (never inside a surrogate pair). The separator
 * at a cut is dropped and pieces are trimmed of surrounding whitespace; empty pieces are skipped,
 * so whitespace-only text gives `[]`.
 */
export function chunkText(text: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`chunkText: limit must be a positive integer (got ${String(limit)})`);
  }
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > limit) {
    const window = rest.slice(0, limit + 1);
    let cut = lastBoundary(window, "\n\n");
    if (cut <= 0) cut = lastBoundary(window, "\n");
    if (cut <= 0) cut = lastWhitespace(window);
    let next: number;
    if (cut > 0) {
      next = cut;
    } else {
      cut = limit;
      // Do not split a surrogate pair: back off one unit when the cut lands between its halves.
      if (isHighSurrogate(rest.charCodeAt(cut - 1)) && cut > 1) cut -= 1;
      next = cut;
    }
    const piece = rest.slice(0, cut).trimEnd();
    if (piece.length > 0) pieces.push(piece);
    rest = rest.slice(next).trimStart();
  }
  if (rest.length > 0) pieces.push(rest);
  return pieces;
}

/** Index where `sep` starts, last occurrence whose preceding text fits the window; -1 if none. */
function lastBoundary(window: string, sep: string): number {
  return window.lastIndexOf(sep, window.length - 1);
}

function lastWhitespace(window: string): number {
  for (let i = window.length - 1; i > 0; i--) {
    const c = window[i];
    if (c === " " || c === "\t") return i;
  }
  return -1;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
