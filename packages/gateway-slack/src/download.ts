// A user's Slack file into the blob store before deliver: `url_private` with the bot token as
// `Authorization: Bearer` (https://api.slack.com/types/file#authentication; without it Slack answers
// its sign-in page), from Slack's file host only, through webhook-kit's bounded, once-per-file fetch.
import type { AttachmentRef, GatewayContext } from "@agentsvc/adapter-kit";
import { fetchPlatformFile, type MediaPolicy } from "@agentsvc/webhook-kit";
import type { SlackFile } from "./inbound.js";

/** Where Slack serves `url_private` (https://api.slack.com/types/file: files.slack.com/files-pri/...). */
const FILE_HOSTS = ["files.slack.com"];

export type MediaOptions = MediaPolicy;

export function downloadFile(
  ctx: GatewayContext,
  file: SlackFile,
  media: MediaOptions | undefined,
  auth: { botToken: string; apiBaseUrl: string },
): Promise<AttachmentRef> {
  return fetchPlatformFile(ctx, file, media, {
    gateway: "slack",
    hosts: FILE_HOSTS,
    apiBaseUrl: auth.apiBaseUrl,
    headers: { authorization: `Bearer ${auth.botToken}` },
    refusedWarning: "file download refused (url_private off Slack's file host)",
  });
}
