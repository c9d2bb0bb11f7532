// An emoji icon needs a font that has it; headless and minimal systems often have none, and the
// header, the empty state and the tab then show an empty box. The page measures: it draws the emoji
// and a character no font has on a small canvas; the same pixels mean the emoji has no glyph, and
// the built-in icon (an SVG data: image, allowed by the page's img-src) takes its places.

/** True when some installed font draws `text` (it does not come out as the missing-glyph box). */
export function canDraw(text: string): boolean {
  const canvas = document.createElement("canvas");
  canvas.width = 40;
  canvas.height = 40;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  if (!ctx) return true;
  ctx.font = "32px sans-serif";
  ctx.textBaseline = "top";
  const pixels = (t: string) => {
    ctx.clearRect(0, 0, 40, 40);
    ctx.fillText(t, 0, 0);
    return ctx.getImageData(0, 0, 40, 40).data;
  };
  // U+10FFFD: a private-use code point no font draws.
  const missing = pixels("\u{10FFFD}");
  const drawn = pixels(text);
  for (let i = 0; i < drawn.length; i++) if (drawn[i] !== missing[i]) return true;
  return false;
}

/** Puts the built-in icon in place of the emoji: header, empty state and favicon. */
export function useFallbackIcon(src: string): void {
  for (const el of document.querySelectorAll<HTMLElement>(".brand-icon, .welcome-icon")) {
    const img = document.createElement("img");
    img.className = el.className;
    img.src = src;
    img.alt = "";
    el.replaceWith(img);
  }
  const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
  if (link) link.href = src;
}
