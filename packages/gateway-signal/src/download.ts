// A received Signal file into the blob store before the message is recorded. signal-cli has already
// fetched and decrypted it into its attachments directory; the daemon hands it over by id with
// `getAttachment` (signal-cli-jsonrpc(5); `id` plus the sender as `recipient`, the file base64 in
// `data`). Nothing leaves the daemon's own address (no SSRF); the daemon's `size` is checked before
// asking, the bytes typed by webhook-kit's sniff, and each id recorded once.
import type { AttachmentKind, AttachmentRef, GatewayContext } from "@agentsvc/adapter-kit";
import { earlierDownload, sniff } from "@agentsvc/webhook-kit";
import type { SignalFile } from "./inbound.js";

export interface MediaOptions {
  types: readonly AttachmentKind[];
  maxBytes: number;
}

export async function storeFile(
  ctx: GatewayContext,
  file: SignalFile,
  media: MediaOptions | undefined,
  getAttachment: (id: string) => Promise<unknown>,
): Promise<AttachmentRef> {
  const named = file.name ? { name: file.name } : {};
  const blobs = ctx.blobs;
  if (!media || !blobs || media.types.length === 0) return { refused: "disabled", kind: file.kind, ...named };
  const earlier = await earlierDownload(blobs, "signal", file.id, file.name);
  if (earlier.stored) return earlier.stored;
  const refuse = async (refused: "type" | "size" | "failed", size?: number): Promise<AttachmentRef> => {
    if (refused !== "failed") await blobs.recordDownload("signal", file.id, { refused });
    return { refused, kind: file.kind, ...named, ...(size !== undefined ? { size } : {}) };
  };
  if (earlier.refused) return refuse(earlier.refused === "size" ? "size" : "type");
  if (!media.types.includes(file.kind) && file.kind !== "document") return refuse("type");
  if (file.size !== undefined && file.size > media.maxBytes) return refuse("size", file.size);
  let bytes: Buffer;
  try {
    const got = (await getAttachment(file.id)) as { data?: unknown } | undefined;
    if (typeof got?.data !== "string") throw new Error("getAttachment answered no data");
    bytes = Buffer.from(got.data, "base64");
  } catch (err) {
    ctx.logger.warn({ err, attachment: file.id }, "signal-cli getAttachment failed; the file is left out");
    return refuse("failed");
  }
  if (bytes.length > media.maxBytes) return refuse("size", bytes.length);
  const sniffed = await sniff(bytes);
  if (!media.types.includes(sniffed.kind)) return refuse("type");
  const stored = await blobs.put(bytes, sniffed.contentType);
  await blobs.recordDownload("signal", file.id, { sha256: stored.sha256 });
  return {
    blob: stored.sha256,
    kind: sniffed.kind,
    contentType: sniffed.contentType,
    size: stored.size,
    ...named,
  };
}
