// The icon: an emoji becomes an inline SVG data: URI (favicon) and header text; an image reference
// is a same-origin path, an http(s) URL or a data:image/ URI. The CSP's img-src follows from it.
import type { PageIcon } from "./entry.js";

const DATA_IMAGE = /^data:image\/(?:png|jpeg|gif|webp|avif|x-icon|vnd\.microsoft\.icon|svg\+xml)[;,]/i;

export type IconSource = { kind: "self" } | { kind: "data" } | { kind: "remote"; origin: string };

/** Classifies an image reference, or throws naming what was expected. */
export function classifyImageSrc(src: string): IconSource {
  const s = src.trim();
  const bad = () =>
    new Error(
      `webui entry icon: expected an emoji, a path such as /logo.svg, an http(s) URL or a data:image/ URI (got ${JSON.stringify(src.slice(0, 80))})`,
    );
  if (s === "" || /[\s"'<>`]/.test(s)) throw bad();
  if (/^data:/i.test(s)) {
    if (!DATA_IMAGE.test(s)) throw bad();
    return { kind: "data" };
  }
  if (/^https?:\/\//i.test(s)) {
    try {
      return { kind: "remote", origin: new URL(s).origin };
    } catch {
      throw bad();
    }
  }
  // Any other scheme (javascript:, file:) and protocol-relative URLs are refused.
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) || s.startsWith("//")) throw bad();
  return { kind: "self" };
}

/** SVG favicon showing one emoji, as a data: URI. */
export function emojiFaviconUri(emoji: string): string {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">` +
    `<text x="50" y="50" dy=".35em" text-anchor="middle" font-size="80">${escapeXml(emoji)}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * The icon a page without one gets: a speech bubble drawn as shapes (no emoji font needed), so a
 * browser has an icon and does not ask the server for /favicon.ico. The server also answers
 * /favicon.ico with it, for clients that ask all the same.
 */
export const FAVICON_SVG =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">` +
  `<path d="M14 18h72a8 8 0 0 1 8 8v40a8 8 0 0 1-8 8H44L24 90V74H14a8 8 0 0 1-8-8V26a8 8 0 0 1 8-8z" fill="#4f46e5"/>` +
  `<circle cx="32" cy="46" r="6" fill="#fff"/><circle cx="50" cy="46" r="6" fill="#fff"/><circle cx="68" cy="46" r="6" fill="#fff"/></svg>`;

export const DEFAULT_FAVICON = `data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}`;

/** The favicon href for an icon (the default bubble when the entry names none). */
export function faviconHref(icon: PageIcon | undefined): string {
  if (!icon) return DEFAULT_FAVICON;
  if (icon.kind === "emoji") return emojiFaviconUri(icon.value);
  classifyImageSrc(icon.src);
  return icon.src.trim();
}
