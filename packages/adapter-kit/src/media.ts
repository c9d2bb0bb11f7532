// Attachments (issue #46): what an inbound message carries (refs to stored blobs, never bytes),
// what a file piece of a reply holds, and the blob store the session reads them from.

/** The payload of a `file` outbox piece: one file of a reply (from a tool result). */
export interface OutboundFilePayload {
  blob: string;
  name: string;
  contentType: string;
  size: number;
  /** Text sent with the file where the platform takes a caption. */
  caption?: string;
}

/** What `Gateway.sendFile` gets: the piece, its bytes on demand, and a signed URL when the service serves one. */
export interface OutboundFile extends OutboundFilePayload {
  bytes(): Promise<Buffer>;
  /** Short-lived signed URL of the file on this service (platforms that fetch by URL, e.g. Twilio `MediaUrl`). */
  url?: string;
}

/** The blob store as the session and the adapters use it (chat-store's `BlobStore` implements it). */
export interface SessionBlobs {
  /** The whole blob, or undefined when it is gone (pruned). */
  read(sha256: string): Promise<Buffer | undefined>;
  /** Stores bytes held in memory; the same bytes again are the same blob. */
  put(bytes: Uint8Array, contentType: string): Promise<{ sha256: string; size: number }>;
  /** Stores a spooled file in pieces (memory stays at one piece). */
  putFile(path: string, contentType: string): Promise<{ sha256: string; size: number }>;
  /** What a platform file became when this gateway fetched it before. */
  download(gateway: string, sourceKey: string): Promise<{ sha256: string } | { refused: string } | undefined>;
  recordDownload(
    gateway: string,
    sourceKey: string,
    record: { sha256: string } | { refused: string },
  ): Promise<void>;
  info(sha256: string): Promise<{ sha256: string; size: number; contentType: string } | undefined>;
  /** Retention and byte cap; run with the rest of the housekeeping. */
  prune(now?: number): Promise<number>;
}

/** The text a platform without file uploads gets for a file piece: its name, size and link when there is one. */
export function fileNote(file: OutboundFilePayload, url?: string): string {
  const size = formatBytes(file.size);
  return url ? `📎 ${file.name} (${size}): ${url}` : `📎 ${file.name} (${size})`;
}

/** 1 234 567 -> "1.2 MB" (decimal units, as people read file sizes). */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ["kB", "MB", "GB"];
  let v = n / 1000;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}
