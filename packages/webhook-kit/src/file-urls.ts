// Short-lived signed URLs of stored files, for platforms that fetch a reply's file by URL (Twilio
// `MediaUrl`), and the handler that serves them. The signature (HMAC-SHA256 over the blob id,
// the file name and the expiry) needs a secret every instance shares, so a URL signed on one
// instance is served by any. Served files never render as a page of ours: downloads
// (`Content-Disposition: attachment`) unless an image on the safe list, `nosniff`, and a CSP
// sandbox.
import { createHmac } from "node:crypto";
import type { OutboundFilePayload, SessionBlobs } from "@agentsvc/adapter-kit";
import { safeEqualText } from "./hub-signature.js";
import { INLINE_IMAGE_TYPES } from "./sniff.js";

/** The path prefix files are served under. */
export const FILES_PATH = "/files";

export interface FileUrlOptions {
  /** The service's public base URL (`publicBaseUrl`). */
  baseUrl: string;
  /** At least 32 bytes, the same on every instance. */
  secret: string | Buffer;
  /** How long a URL works. Default 10 minutes. */
  ttlMs?: number;
  now?: () => number;
}

export interface FileUrls {
  sign(file: Pick<OutboundFilePayload, "blob" | "name">): string;
  /** Answers a GET of a signed URL: the file, 404 for a bad or expired signature or a pruned blob. */
  serve(url: URL, blobs: SessionBlobs): Promise<Response>;
}

export function fileUrls(options: FileUrlOptions): FileUrls {
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  const now = options.now ?? Date.now;
  const base = options.baseUrl.replace(/\/+$/, "");
  const mac = (blob: string, name: string, exp: string) =>
    createHmac("sha256", options.secret).update(`${blob}\n${name}\n${exp}`).digest("base64url");
  return {
    sign(file) {
      const exp = String(now() + ttlMs);
      const name = encodeURIComponent(file.name);
      return `${base}${FILES_PATH}/${file.blob}/${name}?exp=${exp}&sig=${mac(file.blob, file.name, exp)}`;
    },
    async serve(url, blobs) {
      const notFound = () => new Response("", { status: 404 });
      const match = /^\/files\/([0-9a-f]{64})\/([^/]+)$/.exec(url.pathname);
      const exp = url.searchParams.get("exp") ?? "";
      const sig = url.searchParams.get("sig") ?? "";
      if (!match || !/^\d{1,16}$/.test(exp)) return notFound();
      const blob = match[1] as string;
      let name: string;
      try {
        name = decodeURIComponent(match[2] as string);
      } catch {
        return notFound();
      }
      if (!safeEqualText(sig, mac(blob, name, exp)) || Number(exp) < now()) return notFound();
      const info = await blobs.info(blob);
      const bytes = info ? await blobs.read(blob) : undefined;
      if (!info || !bytes) return notFound();
      const inline = INLINE_IMAGE_TYPES.has(info.contentType);
      return new Response(new Uint8Array(bytes), {
        status: 200,
        headers: {
          "content-type": inline ? info.contentType : "application/octet-stream",
          "content-length": String(bytes.length),
          "content-disposition": `${inline ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(name)}`,
          "x-content-type-options": "nosniff",
          "content-security-policy": "default-src 'none'; sandbox",
          "cache-control": "private, max-age=600",
        },
      });
    },
  };
}
