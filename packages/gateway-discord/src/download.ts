// A user's Discord attachment into the blob store before the event is acknowledged: its `url` on
// Discord's CDN is signed and expires (https://discord.com/developers/docs/reference#signed-attachment-cdn-urls),
// so no token is sent; only Discord's own CDN hosts, through webhook-kit's bounded, once-per-file fetch.
import type { AttachmentRef, GatewayContext } from "@agentsvc/adapter-kit";
import { DownloadFailed, fetchPlatformFile, type MediaPolicy } from "@agentsvc/webhook-kit";
import type { DiscordFile } from "./inbound.js";

/** Where Discord serves attachments (the attachment object's `url` and `proxy_url`). */
const CDN_HOSTS = ["cdn.discordapp.com", "media.discordapp.net"];

export type MediaOptions = MediaPolicy;

export async function downloadFile(
  ctx: GatewayContext,
  file: DiscordFile,
  media: MediaOptions | undefined,
  apiBaseUrl: string,
): Promise<AttachmentRef> {
  try {
    return await fetchPlatformFile(ctx, file, media, {
      gateway: "discord",
      hosts: CDN_HOSTS,
      apiBaseUrl,
      refusedWarning: "attachment download refused (off Discord's CDN)",
    });
  } catch (err) {
    // Gone for good (the signed URL expired, the message was deleted): a resume would replay the
    // dispatch into the same answer and hold every later event, so the message goes on without it.
    if (!(err instanceof DownloadFailed && [403, 404, 410].includes(err.status))) throw err;
    ctx.logger.warn({ attachment: file.id, status: err.status }, "attachment gone from Discord's CDN");
    return { refused: "failed", kind: file.kind, ...(file.name ? { name: file.name } : {}) };
  }
}
