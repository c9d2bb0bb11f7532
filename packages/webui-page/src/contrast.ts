// WCAG 2.x contrast (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio), for picking a readable
// text colour on an entry's accent at build time and for the tests that check every token pair.

/** `#rgb` or `#rrggbb` -> [r, g, b] in 0..255; undefined for anything else. */
export function parseHex(value: string): [number, number, number] | undefined {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value.trim());
  if (!m?.[1]) return undefined;
  const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join("") : m[1];
  return [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

export function relativeLuminance([r, g, b]: readonly [number, number, number]): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export function contrastRatio(
  a: readonly [number, number, number],
  b: readonly [number, number, number],
): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const LIGHT_TEXT = "#ffffff";
const DARK_TEXT = "#111827";

/** White or near-black, whichever reads better on `background` (a hex colour); else undefined. */
export function readableOn(background: string): string | undefined {
  const bg = parseHex(background);
  if (!bg) return undefined;
  const white = contrastRatio(bg, [255, 255, 255]);
  const dark = contrastRatio(bg, parseHex(DARK_TEXT) as [number, number, number]);
  return white >= dark ? LIGHT_TEXT : DARK_TEXT;
}
