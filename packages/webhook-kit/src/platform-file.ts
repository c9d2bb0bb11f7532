// A platform's file as the adapters take it in: nothing fetched without a media block and a blob
// store, the platform's hosts plus the configured API base's (a proxy, or a fake on 127.0.0.1), and
// a file off those hosts refused for good with a warning instead of failing the message.
import type { AttachmentKind, AttachmentRef, GatewayContext } from "@agentsvc/adapter-kit";
import { DownloadRefused, fetchAttachment } from "./download.js";

/** A file as the adapter read it from the platform's payload. */
export interface PlatformFile {
  /** The platform's stable id of the file: the dedup key. */
  id: string;
  url: string;
  kind: AttachmentKind;
  name?: string;
  size?: number;
}

/** The entry's `media` block. */
export interface MediaPolicy {
  types: readonly AttachmentKind[];
  maxBytes: number;
}

export interface PlatformFileAccess {
  /** The gateway's type, the store's namespace of file ids. */
  gateway: string;
  /** The platform's file hosts (exact, or `.example.com` for subdomains). */
  hosts: readonly string[];
  /** The configured API base URL: its host is allowed too. */
  apiBaseUrl: string;
  /** Authentication the file URL needs. */
  headers?: Record<string, string>;
  /** The warning logged when the file's URL is off the hosts. */
  refusedWarning: string;
}

/**
 * The file as a ref for `Inbound.attachments` (see fetchAttachment): refused "disabled" without a
 * media block, a blob store or any kind allowed (recorded nowhere, so a later media block takes it);
 * refused "failed" when its URL is off the hosts. Transport failures throw, as fetchAttachment's do.
 */
export async function fetchPlatformFile(
  ctx: Pick<GatewayContext, "blobs" | "logger">,
  file: PlatformFile,
  media: MediaPolicy | undefined,
  access: PlatformFileAccess,
  fetchImpl: typeof fetch = fetch,
): Promise<AttachmentRef> {
  const named = file.name ? { name: file.name } : {};
  if (!media || !ctx.blobs || media.types.length === 0)
    return { refused: "disabled", kind: file.kind, ...named };
  try {
    return await fetchAttachment(
      { blobs: ctx.blobs, gateway: access.gateway },
      {
        sourceKey: file.id,
        url: file.url,
        kind: file.kind,
        ...named,
        ...(file.size !== undefined ? { size: file.size } : {}),
        ...(access.headers ? { headers: access.headers } : {}),
      },
      {
        types: media.types,
        maxBytes: media.maxBytes,
        allowedHosts: [...access.hosts, new URL(access.apiBaseUrl).hostname],
      },
      fetchImpl,
    );
  } catch (err) {
    if (!(err instanceof DownloadRefused)) throw err;
    ctx.logger.warn({ err, file: file.id }, access.refusedWarning);
    return { refused: "failed", kind: file.kind, ...named };
  }
}
