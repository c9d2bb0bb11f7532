// A user's Slack file into the blob store before deliver: `url_private` with the bot token as
// `Authorization: Bearer` (https://api.slack.com/types/file#authentication; without it Slack answers
// its sign-in page), from Slack's file host only, through webhook-kit's bounded, once-per-file fetch.
import type { AttachmentKind, AttachmentRef, GatewayContext } from "@agentsvc/adapter-kit";
import { DownloadRefused, fetchAttachment } from "@agentsvc/webhook-kit";
import type { SlackFile } from "./inbound.js";

/** Where Slack serves `url_private` (https://api.slack.com/types/file: files.slack.com/files-pri/...). */
const FILE_HOSTS = ["files.slack.com"];

export interface MediaOptions {
  types: readonly AttachmentKind[];
  maxBytes: number;
}

export async function downloadFile(
  ctx: GatewayContext,
  file: SlackFile,
  media: MediaOptions | undefined,
  auth: { botToken: string; apiBaseUrl: string },
): Promise<AttachmentRef> {
  const named = file.name ? { name: file.name } : {};
  if (!media || !ctx.blobs || media.types.length === 0)
    return { refused: "disabled", kind: file.kind, ...named };
  try {
    return await fetchAttachment(
      { blobs: ctx.blobs, gateway: "slack" },
      {
        sourceKey: file.id,
        url: file.url,
        kind: file.kind,
        ...named,
        ...(file.size !== undefined ? { size: file.size } : {}),
        headers: { authorization: `Bearer ${auth.botToken}` },
      },
      {
        types: media.types,
        maxBytes: media.maxBytes,
        // The configured Web API base's host too (a proxy, or the fake on 127.0.0.1).
        allowedHosts: [...FILE_HOSTS, new URL(auth.apiBaseUrl).hostname],
      },
    );
  } catch (err) {
    if (!(err instanceof DownloadRefused)) throw err;
    ctx.logger.warn({ file: file.id }, "file download refused (url_private off Slack's file host)");
    return { refused: "failed", kind: file.kind, ...named };
  }
}
