// A blob store in memory that keeps session-core's SessionBlobs contract (content-addressed by
// sha256, a download recorded once per gateway and platform file), for adapter tests that assert
// what was fetched and handed to the session. chat-store's BlobStore is the real one, tested on
// SQLite and PostgreSQL in chat-store.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { SessionBlobs } from "@agentsvc/session-core";

export interface MemoryBlobs extends SessionBlobs {
  /** sha256 -> bytes and sniffed type. */
  readonly stored: Map<string, { bytes: Buffer; contentType: string }>;
}

export function memoryBlobs(): MemoryBlobs {
  const stored = new Map<string, { bytes: Buffer; contentType: string }>();
  const downloads = new Map<string, { sha256: string } | { refused: string }>();
  const put = async (bytes: Uint8Array, contentType: string) => {
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    if (!stored.has(sha256)) stored.set(sha256, { bytes: Buffer.from(bytes), contentType });
    return { sha256, size: bytes.length };
  };
  return {
    stored,
    put,
    putFile: async (path, contentType) => put(await readFile(path), contentType),
    read: async (sha) => stored.get(sha)?.bytes,
    info: async (sha) => {
      const s = stored.get(sha);
      return s ? { sha256: sha, size: s.bytes.length, contentType: s.contentType } : undefined;
    },
    download: async (gateway, key) => downloads.get(`${gateway}\n${key}`),
    recordDownload: async (gateway, key, record) => {
      if (!downloads.has(`${gateway}\n${key}`)) downloads.set(`${gateway}\n${key}`, record);
    },
    prune: async () => 0,
  };
}
