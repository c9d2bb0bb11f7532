// A reply's files (from tool results) as outbox pieces: each stored as a blob in the turn's
// transaction and queued as one `file` piece with a key of its own, so it is sent exactly once
// like text. A store without blobs sends the file's name as text instead.
import type { ToolFile } from "@agentsvc/agent-core";
import { fileNote, type OutboundFilePayload } from "@agentsvc/adapter-kit";
import type { OutboxItem } from "./replies.js";
import type { SessionStore } from "./store.js";

export async function filePieces(
  store: SessionStore,
  gateway: string,
  thread: string,
  inboxId: number,
  files: readonly ToolFile[],
  meta?: Record<string, unknown>,
): Promise<OutboxItem[]> {
  const items: OutboxItem[] = [];
  for (const [i, file] of files.entries()) {
    const bytes = typeof file.data === "string" ? Buffer.from(file.data, "base64") : file.data;
    const idemKey = `${gateway}:in${inboxId}:file${i}`;
    if (!store.blobs) {
      const note = fileNote({
        blob: "",
        name: file.name,
        contentType: file.contentType,
        size: bytes.byteLength,
      });
      items.push({
        gateway,
        thread,
        idemKey,
        kind: "text",
        payload: { text: note, ...(meta ? { meta } : {}) },
      });
      continue;
    }
    const stored = await store.blobs.put(bytes, file.contentType);
    const payload: OutboundFilePayload & { meta?: Record<string, unknown> } = {
      blob: stored.sha256,
      name: file.name,
      contentType: file.contentType,
      size: stored.size,
      ...(file.caption ? { caption: file.caption } : {}),
      ...(meta ? { meta } : {}),
    };
    items.push({ gateway, thread, idemKey, kind: "file", payload });
  }
  return items;
}
