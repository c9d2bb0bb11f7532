// What the download tests share: a blob store kept to the SessionBlobs contract in a map (chat-store's
// BlobStore is tested on both dialects in chat-store) and an HTTP server on 127.0.0.1.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { SessionBlobs } from "@agentsvc/adapter-kit";
import { onTestFinished } from "vitest";

export function memoryBlobs(): SessionBlobs & {
  stored: Map<string, { bytes: Buffer; contentType: string }>;
} {
  const stored = new Map<string, { bytes: Buffer; contentType: string }>();
  const downloads = new Map<string, { sha256: string } | { refused: string }>();
  const put = async (bytes: Uint8Array, contentType: string) => {
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    stored.set(sha256, { bytes: Buffer.from(bytes), contentType });
    return { sha256, size: bytes.length };
  };
  return {
    stored,
    put,
    putFile: async (path, contentType) => put(readFileSync(path), contentType),
    read: async (sha) => stored.get(sha)?.bytes,
    info: async (sha) => {
      const s = stored.get(sha);
      return s ? { sha256: sha, size: s.bytes.length, contentType: s.contentType } : undefined;
    },
    download: async (g, k) => downloads.get(`${g} ${k}`),
    recordDownload: async (g, k, r) => {
      if (!downloads.has(`${g} ${k}`)) downloads.set(`${g} ${k}`, r);
    },
    prune: async () => 0,
  };
}

/**
 * An HTTP server on 127.0.0.1, closed when the calling test ends. The close is registered by the
 * test itself, not by an `afterEach` on import, which a shared thread runs for its first file only.
 */
export async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req);
    handler(req, res);
  });
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}
