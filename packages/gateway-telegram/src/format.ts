// Markdown from the agent -> Telegram's HTML parse mode, rendered and cut into pieces by
// @agentsvc/markdown (`splitHtml` counts visible characters, as sendMessage's 4096 limit does).

import { toTelegramHtml } from "@agentsvc/markdown";

export { escapeHtml, htmlToPlain, splitHtml } from "@agentsvc/markdown";

/** Converts the agent's markdown to Telegram HTML through the shared Markdown front end. */
export const markdownToTelegramHtml = toTelegramHtml;

const TAG = /^<(\/?)([a-z-]+)((?:\s[^<>]*)?)>/i;
const ENTITY = /^&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot);/i;

/**
 * Makes one piece of formatted text parse on its own: closes tags left open at the cut, reopens
 * tags closed without an opener (the opener was in the previous piece; links lose their target),
 * and escapes any `<`, `>` or `&` a hard cut left without its tag or entity.
 */
export function repairHtml(piece: string): string {
  const open: { name: string }[] = [];
  const reopen: string[] = [];
  let out = "";
  let i = 0;
  while (i < piece.length) {
    const rest = piece.slice(i);
    const c = piece[i] as string;
    const tag = c === "<" ? TAG.exec(rest) : null;
    const entity = c === "&" ? ENTITY.exec(rest) : null;
    if (tag) {
      const name = (tag[2] as string).toLowerCase();
      if (!tag[1]) open.push({ name });
      else if (open.at(-1)?.name === name) open.pop();
      else if (name === "a") {
        i += tag[0].length; // an orphan link closer: its target is in the previous piece
        continue;
      } else reopen.unshift(`<${name}>`);
      out += tag[0];
      i += tag[0].length;
    } else if (entity) {
      out += entity[0];
      i += entity[0].length;
    } else {
      out += c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === "&" ? "&amp;" : c;
      i += 1;
    }
  }
  const closers = open
    .reverse()
    .map((t) => `</${t.name}>`)
    .join("");
  return reopen.join("") + out + closers;
}
