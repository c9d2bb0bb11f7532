// The part of a turn's reply that follows what was already sent before its approval requests.

/**
 * `text` after `prefix`, trimmed, or undefined when `text` does not start with it. Whitespace does
 * not count: the stored prefix joins the parts finalised before each request with a space, the
 * turn's text joins its messages with a blank line (after two requests they differ).
 */
export function afterPrefix(text: string, prefix: string): string | undefined {
  let at = 0;
  for (const char of prefix) {
    if (isSpace(char)) continue;
    while (at < text.length && isSpace(text.charAt(at))) at++;
    if (!text.startsWith(char, at)) return undefined;
    at += char.length;
  }
  return text.slice(at).trim();
}

function isSpace(char: string): boolean {
  return char.trim() === "";
}
