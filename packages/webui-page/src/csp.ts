// Security headers for the page: a CSP that allows exactly the inlined blocks (by SHA-256 hash) and
// the icon's origin, plus a strong ETag over the bytes.
import { createHash } from "node:crypto";
import { CONFIG_ELEMENT_ID, type ClientConfig } from "./render.js";
import { classifyImageSrc } from "./icon.js";

export interface PageSecurityHeaders {
  "Content-Security-Policy": string;
  ETag: string;
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("base64");

function blockHashes(html: string, tag: "script" | "style"): string[] {
  const re = new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`, "gi");
  const out = new Set<string>();
  for (const m of html.matchAll(re)) out.add(`'sha256-${sha256(m[1] ?? "")}'`);
  return [...out];
}

function iconImgSources(html: string): string[] {
  const re = new RegExp(`<script type="application/json" id="${CONFIG_ELEMENT_ID}">([\\s\\S]*?)</script>`);
  const m = re.exec(html);
  const sources = ["'self'", "data:"];
  if (!m) return sources;
  const config = JSON.parse(m[1]!) as Partial<ClientConfig>;
  // Attached pictures are fetched with the caller's headers and shown from blob: URLs.
  if (config.media) sources.push("blob:");
  if (config.icon?.kind === "image") {
    const src = classifyImageSrc(config.icon.src);
    if (src.kind === "remote") sources.push(src.origin);
  }
  return sources;
}

/** CSP and ETag for a page produced by `renderPage`. */
export function pageSecurityHeaders(html: string): PageSecurityHeaders {
  const scripts = blockHashes(html, "script");
  const styles = blockHashes(html, "style");
  const csp = [
    "default-src 'none'",
    `script-src ${scripts.length ? scripts.join(" ") : "'none'"}`,
    `style-src ${styles.length ? styles.join(" ") : "'none'"}`,
    `img-src ${iconImgSources(html).join(" ")}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  const etag = `"${createHash("sha256").update(html, "utf8").digest("base64url")}"`;
  return { "Content-Security-Policy": csp, ETag: etag };
}
