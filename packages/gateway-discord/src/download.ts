// A user's Discord attachment into the blob store before the event is acknowledged: its `url` on
// Discord's CDN is signed and expires (https://discord.com/developers/docs/reference#signed-attachment-cdn-urls),
// so no token is sent; only Discord's own CDN hosts, through webhook-kit's bounded, once-per-file fetch.
import type { AttachmentKind, AttachmentRef, GatewayContext } from "@agentsvc/adapter-kit";
import { DownloadFailed, DownloadRefused, fetchAttachment } from "@agentsvc/webhook-kit";
import type { DiscordFile } from "./inbound.js";

/** Where Discord serves attachments (the attachment object's `url` and `proxy_url`). */
const CDN_HOSTS = ["cdn.discordapp.com", "media.discordapp.net"];

export interface MediaOptions {
  types: readonly AttachmentKind[];
  maxBytes: number;
}

export async function downloadFile(
  ctx: GatewayContext,
  file: DiscordFile,
  media: MediaOptions | undefined,
  apiBaseUrl: string,
): Promise<AttachmentRef> {
  const named = file.name ? { name: file.name } : {};
  if (!media || !ctx.blobs || media.types.length === 0)
    return { refused: "disabled", kind: file.kind, ...named };
  try {
    return await fetchAttachment(
      { blobs: ctx.blobs, gateway: "discord" },
      {
        sourceKey: file.id,
        url: file.url,
        kind: file.kind,
        ...named,
        ...(file.size !== undefined ? { size: file.size } : {}),
      },
      {
        types: media.types,
        maxBytes: media.maxBytes,
        // The configured API base's host too (a proxy, or the fake on 127.0.0.1).
        allowedHosts: [...CDN_HOSTS, new URL(apiBaseUrl).hostname],
      },
    );
  } catch (err) {
    // Gone for good (the signed URL expired, the message was deleted): a resume would replay the
    // dispatch into the same answer and hold every later event, so the message goes on without it.
    if (err instanceof DownloadFailed && [403, 404, 410].includes(err.status)) {
      ctx.logger.warn({ attachment: file.id, status: err.status }, "attachment gone from Discord's CDN");
      return { refused: "failed", kind: file.kind, ...named };
    }
    if (!(err instanceof DownloadRefused)) throw err;
    ctx.logger.warn({ attachment: file.id }, "attachment download refused (off Discord's CDN)");
    return { refused: "failed", kind: file.kind, ...named };
  }
}
