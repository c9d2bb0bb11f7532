// A reply's file on Teams (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/bots-filesv4):
// - a small picture goes inline: a message attachment whose `contentUrl` is a data URI (the
//   connector refuses a message over about 28 KB with 413 MessageSizeTooBig, so only pictures up to
//   INLINE_IMAGE_MAX_BYTES, of the types Teams shows inline);
// - any other file in a personal chat: a file consent card. When the user presses Allow, Teams
//   sends a `fileConsent/invoke` whose `uploadInfo.uploadUrl` is an upload session in the user's
//   OneDrive; the bot PUTs the bytes there, then posts a file info card that shows the file in the
//   chat. Deny leaves the card and nothing is uploaded;
// - group chats and channels cannot take a consent card (the bot APIs send files in personal scope
//   only): the file goes out as a link to the service's signed file URL when `publicBaseUrl` is set,
//   else as a note naming it.
import { createHash } from "node:crypto";
import { type OutboundFile, type OutboundFilePayload, fileNote } from "@agentsvc/adapter-kit";

type Json = Record<string, unknown>;

const INLINE_IMAGE_MAX_BYTES = 20_000;
const INLINE_TYPES = new Set(["image/png", "image/jpeg", "image/gif"]);
const FILE_CONSENT = "application/vnd.microsoft.teams.card.file.consent";
const FILE_INFO = "application/vnd.microsoft.teams.card.file.info";
/** OneDrive's upload session takes pieces under 60 MiB, each a multiple of 320 KiB but the last. */
const UPLOAD_PIECE = 32 * 320 * 1024;
/** The hosts an upload session may be on (OneDrive for Business / SharePoint Online). */
const UPLOAD_HOSTS = [".sharepoint.com"];

/** What a consent card's `acceptContext` names, kept in the gateway's state until it is used. */
export interface PendingFile extends OutboundFilePayload {
  conversationId: string;
  /** Set once the file info card is posted: a second Allow does nothing. */
  uploaded?: boolean;
}

export const inlineFits = (file: OutboundFilePayload) =>
  INLINE_TYPES.has(file.contentType) && file.size <= INLINE_IMAGE_MAX_BYTES;

export function inlineImage(file: OutboundFile, bytes: Buffer): Json {
  return {
    type: "message",
    ...(file.caption ? { text: file.caption, textFormat: "markdown" } : {}),
    attachments: [
      {
        contentType: file.contentType,
        contentUrl: `data:${file.contentType};base64,${bytes.toString("base64")}`,
        name: file.name,
      },
    ],
  };
}

/** The state key of a consent card: one per outbox piece, so a retried send offers the same file. */
export const consentKey = (idempotencyKey: string) =>
  `consent:${createHash("sha256").update(idempotencyKey).digest("hex").slice(0, 32)}`;

export function consentCard(file: OutboundFilePayload, key: string): Json {
  return {
    type: "message",
    ...(file.caption ? { text: file.caption, textFormat: "markdown" } : {}),
    attachments: [
      {
        contentType: FILE_CONSENT,
        name: file.name,
        content: {
          description: file.caption ?? file.name,
          sizeInBytes: file.size,
          acceptContext: { key },
          declineContext: { key },
        },
      },
    ],
  };
}

/** The card that shows an uploaded file in the chat (from the consent invoke's `uploadInfo`). */
export function fileInfoCard(info: {
  contentUrl: string;
  name: string;
  uniqueId: string;
  fileType: string;
}): Json {
  return {
    type: "message",
    attachments: [
      {
        contentType: FILE_INFO,
        contentUrl: info.contentUrl,
        name: info.name,
        content: { uniqueId: info.uniqueId, fileType: info.fileType },
      },
    ],
  };
}

/** A group chat's or channel's file: a link to the signed URL, else its name and size. */
export function fileLink(file: OutboundFile): Json {
  return { type: "message", text: fileNote(file, file.url), textFormat: "markdown" };
}

/** The upload session URL, when it is on OneDrive (or `extraHost`, a fake's): never anywhere a body named. */
export function uploadHostAllowed(url: string, extraHost: string): boolean {
  let host: string;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return false;
    host = parsed.host.toLowerCase();
  } catch {
    return false;
  }
  if (host === extraHost.toLowerCase()) return true;
  return UPLOAD_HOSTS.some((h) => host.endsWith(h) && host.length > h.length);
}

/** A whole upload gives up after this long (the invoke it answers is answered 500; Allow can be pressed again). */
const UPLOAD_TIMEOUT_MS = 120_000;

/**
 * The bytes into a OneDrive upload session: PUTs of at most UPLOAD_PIECE bytes with `Content-Range`
 * (https://learn.microsoft.com/en-us/graph/api/driveitem-createuploadsession#upload-bytes-to-the-upload-session);
 * the session URL is pre-authenticated, so no token is sent.
 */
export async function uploadToSession(url: string, bytes: Buffer, stop: AbortSignal): Promise<void> {
  if (bytes.length === 0) throw new Error("teams: an empty file cannot be uploaded");
  const signal = AbortSignal.any([stop, AbortSignal.timeout(UPLOAD_TIMEOUT_MS)]);
  for (let start = 0; start < bytes.length; start += UPLOAD_PIECE) {
    const piece = bytes.subarray(start, Math.min(start + UPLOAD_PIECE, bytes.length));
    const end = start + piece.length - 1;
    const res = await fetch(url, {
      method: "PUT",
      headers: {
        "content-length": String(piece.length),
        "content-range": `bytes ${start}-${end}/${bytes.length}`,
      },
      body: piece,
      signal,
    });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`teams: the upload session answered HTTP ${res.status}`);
  }
}
