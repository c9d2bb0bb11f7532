// A user's file into the blob store: getFile for its `file_path`, then the kit's bounded download
// from the Bot API's own host (https://core.telegram.org/bots/api#getfile: "up to 20MB", the link
// "valid for at least 1 hour" and asked for again on each try).
import {
  type AttachmentKind,
  type AttachmentRef,
  type GatewayContext,
  PlatformCallError,
} from "@agentsvc/adapter-kit";
import { DownloadRefused, fetchAttachment } from "@agentsvc/webhook-kit";
import type { BotApi } from "./api.js";
import type { TgFile } from "./inbound.js";

/** Bots can download files of up to 20 MB: a bigger one is refused without asking. */
const GETFILE_LIMIT = 20 * 1024 * 1024;

export async function downloadFile(
  api: BotApi,
  ctx: GatewayContext,
  file: TgFile,
  media: { types: readonly AttachmentKind[]; maxBytes: number } | undefined,
  apiHost: string,
): Promise<AttachmentRef> {
  const named = file.name ? { name: file.name } : {};
  const sized = file.size !== undefined ? { size: file.size } : {};
  if (!media || !ctx.blobs) return { refused: "disabled", kind: file.kind, ...named };
  if (media.types.length === 0) return { refused: "disabled", kind: file.kind, ...named };
  if (file.size !== undefined && file.size > Math.min(media.maxBytes, GETFILE_LIMIT))
    return { refused: "size", kind: file.kind, ...named, ...sized };
  let path: string;
  try {
    const got = await api.call<{ file_path?: string }>("getFile", { file_id: file.fileId });
    if (!got.file_path) throw new Error("getFile answered no file_path");
    path = got.file_path;
  } catch (err) {
    if (err instanceof PlatformCallError && /too big/i.test(err.facts.detail ?? ""))
      return { refused: "size", kind: file.kind, ...named, ...sized };
    throw err;
  }
  try {
    return await fetchAttachment(
      { blobs: ctx.blobs, gateway: "telegram" },
      { sourceKey: file.uniqueId, url: api.fileUrl(path), kind: file.kind, ...named, ...sized },
      { types: media.types, maxBytes: media.maxBytes, allowedHosts: [apiHost] },
    );
  } catch (err) {
    if (!(err instanceof DownloadRefused)) throw err;
    ctx.logger.warn({ kind: file.kind }, "file download refused (off the Bot API host)");
    return { refused: "failed", kind: file.kind, ...named };
  }
}
