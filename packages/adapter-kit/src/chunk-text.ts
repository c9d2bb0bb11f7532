// Splits a reply into platform-sized pieces, preferring paragraph, then line, then word boundaries,
// and keeping fenced code blocks whole: a block cut in two is closed at the end of one piece and
// reopened with the same fence and info string (language) at the start of the next.

/**
 * Splits `text` into pieces of at most `limit` UTF-16 code units (what platforms count).
 * Each cut is made at the last paragraph break (`\n\n`) inside the window, else the last line
 * break, else the last space, else hard at `limit` (never inside a surrogate pair). The separator
 * at a cut is dropped and pieces are trimmed of surrounding whitespace; empty pieces are skipped,
 * so whitespace-only text gives `[]`. Inside a fenced block (``` or ~~~) the cut is at a line
 * break, else hard; the piece ends with the closing fence, the next begins with the opening one,
 * code lines keep their indentation, and no piece is longer than `limit` with the fences counted.
 */
export function chunkText(text: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`chunkText: limit must be a positive integer (got ${String(limit)})`);
  }
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > limit) {
    const { piece, next } = cutOnce(rest, limit);
    if (piece.length > 0) pieces.push(piece);
    rest = next;
  }
  if (rest.length > 0) pieces.push(rest);
  return pieces;
}

interface Cut {
  piece: string;
  next: string;
}

/** A fenced block still open at some point: its fence, where its opening line starts and its body begins. */
interface OpenFence {
  marker: string;
  info: string;
  start: number;
  bodyStart: number;
}

// CommonMark: up to three spaces, then at least three backticks or tildes, then the info string.
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

function cutOnce(rest: string, limit: number): Cut {
  const plain = plainCut(rest, limit);
  const fence = openFenceAt(rest, plain.cut);
  if (!fence) return plainPiece(rest, plain.cut, plain.next);
  const closer = `\n${fence.marker}`;
  const reopen = `${fence.marker}${fence.info}\n`;
  const room = limit - closer.length;
  // A block with nothing of it in this piece yet starts in the next one, rather than leaving an
  // empty block behind (also when its opening line sits too near the end of the window).
  const empty = rest.slice(fence.bodyStart, plain.cut).trim() === "" || room <= fence.bodyStart;
  if (empty && fence.start > 0 && rest.slice(0, fence.start).trim() !== "") {
    return plainPiece(rest, fence.start, fence.start);
  }
  // Too small a limit for fences around at least one character: cut as plain text.
  if (reopen.length + 1 + closer.length > limit || room <= fence.bodyStart) {
    return plainPiece(rest, plain.cut, plain.next);
  }
  let cut = rest.lastIndexOf("\n", room);
  let next = cut + 1; // the line break at the cut is dropped, nothing else
  if (cut <= fence.bodyStart) {
    cut = room;
    if (isHighSurrogate(rest.charCodeAt(cut - 1)) && cut - 1 > fence.bodyStart) cut -= 1;
    next = cut;
  }
  const piece = `${rest.slice(0, cut)}${closer}`;
  const after = rest.slice(next);
  // The block ends right here: its own closing line is already in place, nothing to reopen.
  const lineEnd = after.indexOf("\n");
  const firstLine = lineEnd === -1 ? after : after.slice(0, lineEnd);
  if (closes(firstLine, fence.marker)) {
    return { piece, next: after.slice(firstLine.length).trimStart() };
  }
  return { piece, next: `${reopen}${after}` };
}

/** The cut as for plain text: paragraph break, line break, space, else hard (whole surrogate pairs). */
function plainCut(rest: string, limit: number): { cut: number; next: number } {
  const window = rest.slice(0, limit + 1);
  let cut = lastBoundary(window, "\n\n");
  if (cut <= 0) cut = lastBoundary(window, "\n");
  if (cut <= 0) cut = lastWhitespace(window);
  if (cut > 0) return { cut, next: cut };
  cut = limit;
  // Do not split a surrogate pair: back off one unit when the cut lands between its halves.
  if (isHighSurrogate(rest.charCodeAt(cut - 1)) && cut > 1) cut -= 1;
  return { cut, next: cut };
}

function plainPiece(rest: string, cut: number, next: number): Cut {
  return { piece: rest.slice(0, cut).trimEnd(), next: rest.slice(next).trimStart() };
}

/** The fenced block open at `end` (scanning whole lines from the start of `text`), if any. */
function openFenceAt(text: string, end: number): OpenFence | undefined {
  let open: OpenFence | undefined;
  let at = 0;
  while (at < end) {
    const nl = text.indexOf("\n", at);
    const lineEnd = nl === -1 || nl > end ? end : nl;
    const line = text.slice(at, lineEnd);
    if (open) {
      if (closes(line, open.marker)) open = undefined;
    } else {
      const m = FENCE.exec(line);
      const run = m?.[1] ?? "";
      const info = m?.[2] ?? "";
      // A backtick fence's info string holds no backtick (CommonMark), else it is inline code.
      if (m && !(run.startsWith("`") && info.includes("`"))) {
        open = { marker: run, info: info.trim(), start: at, bodyStart: Math.min(lineEnd + 1, text.length) };
      }
    }
    if (nl === -1 || nl >= end) break;
    at = nl + 1;
  }
  return open;
}

/** A closing fence: the same character, at least as long, nothing after it but spaces. */
function closes(line: string, marker: string): boolean {
  const m = FENCE.exec(line);
  const run = m?.[1] ?? "";
  return !!m && run[0] === marker[0] && run.length >= marker.length && (m[2] ?? "").trim() === "";
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
