// A user's Teams file into the blob store before the activity is acknowledged, through webhook-kit's
// bounded, typed, once-per-file fetch (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/bots-filesv4):
// - a personal chat's file share: `downloadUrl` is pre-authenticated and on the user's OneDrive
//   (SharePoint) host, so no token is sent and only `*.sharepoint.com` is allowed;
// - a pasted picture: `contentUrl` on the Bot Connector service, fetched with the bot's token, which
//   goes to the connector's hosts only (the activity's verified serviceUrl, smba.trafficmanager.net),
//   never to where they redirect.
// A URL that answers 401/403/404/410 (a download link past its expiry, a deleted file) is gone for
// good: the connector would send the same activity again with the same dead URL, so the message goes
// on without that file (refused `failed`) instead of failing every redelivery.
import type { AttachmentRef, GatewayContext } from "@agentsvc/adapter-kit";
import { DownloadFailed, fetchPlatformFile, type MediaPolicy } from "@agentsvc/webhook-kit";
import type { TeamsFile } from "./inbound.js";

/** OneDrive for Business / SharePoint Online: where a personal chat's file shares live. */
const SHARE_HOSTS = [".sharepoint.com"];
/** Microsoft's global connector host (the activity's own serviceUrl host is added). */
const CONNECTOR_HOSTS = ["smba.trafficmanager.net"];
/** Gone for good; a 401 on a picture is the bot's token, not the file, and is tried again. */
const GONE = { share: [401, 403, 404, 410], inline: [403, 404, 410] };

export type MediaOptions = MediaPolicy;

export async function downloadFile(
  ctx: GatewayContext,
  file: TeamsFile,
  media: MediaOptions | undefined,
  access: {
    serviceUrl: string;
    token: () => Promise<string>;
    /** The connector refused the token for a picture: drop it, so the redelivery fetches with a new one. */
    tokenRefused?: () => void;
  },
): Promise<AttachmentRef> {
  const inline = file.via === "inline";
  try {
    return await fetchPlatformFile(ctx, file, media, {
      gateway: "teams",
      hosts: inline ? CONNECTOR_HOSTS : SHARE_HOSTS,
      // The activity's serviceUrl was checked against the token's `serviceurl` claim.
      apiBaseUrl: access.serviceUrl,
      ...(inline && media && ctx.blobs
        ? { headers: { authorization: `Bearer ${await access.token()}` } }
        : {}),
      refusedWarning: inline
        ? "picture download refused (contentUrl off the Bot Connector's hosts)"
        : "file download refused (downloadUrl off SharePoint)",
    });
  } catch (err) {
    if (inline && err instanceof DownloadFailed && err.status === 401) access.tokenRefused?.();
    if (!(err instanceof DownloadFailed && GONE[file.via].includes(err.status))) throw err;
    ctx.logger.warn({ file: file.id, status: err.status }, "a file of the message is gone (expired link?)");
    return { refused: "failed", kind: file.kind, ...(file.name ? { name: file.name } : {}) };
  }
}
