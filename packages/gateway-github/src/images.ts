// Pictures linked in a comment (issue #46): GitHub stores an image pasted into a comment as an
// attachment and writes a link into the markdown body, `![name](https://github.com/user-attachments/assets/<uuid>)`
// or an `<img src=...>` tag (older comments: `https://user-images.githubusercontent.com/...`). A
// user-attachments URL redirects to a short-lived signed URL on private-user-images.githubusercontent.com
// (https://docs.github.com/en/get-started/writing-on-github/working-with-advanced-formatting/attaching-files).
// Only those URLs are taken (GitHub Enterprise Server: the same path on its own host, the API base's);
// any other link in a comment is text, never fetched. No token is sent: a private repository's
// attachments need a signed-in browser session and are left out (refused `failed`).
import type { AttachmentRef, GatewayContext } from "@agentsvc/adapter-kit";
import { fetchPlatformFile, type MediaPolicy, type PlatformFile } from "@agentsvc/webhook-kit";

/** At most this many pictures of one comment are fetched; the rest stay links in its text. */
export const MAX_IMAGES = 4;
/** Where GitHub serves comment attachments, and where their links redirect. */
const IMAGE_HOSTS = [
  "github.com",
  "user-images.githubusercontent.com",
  "private-user-images.githubusercontent.com",
];

/** The attachment pictures a comment body links to, in order, once each. */
export function linkedImages(body: string, apiBaseUrl: string): PlatformFile[] {
  const ownHost = new URL(apiBaseUrl).host;
  const urls = [
    ...[...body.matchAll(/!\[[^\]]*\]\(\s*<?(https?:\/\/[^\s)>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
    ...[...body.matchAll(/<img\b[^>]*?\bsrc\s*=\s*["'](https?:\/\/[^"']+)["']/gi)].map((m) => m[1]),
  ];
  const files: PlatformFile[] = [];
  for (const url of urls) {
    if (!url || files.length >= MAX_IMAGES || files.some((f) => f.url === url)) continue;
    if (!isAttachment(url, ownHost)) continue;
    const name = new URL(url).pathname.split("/").pop();
    files.push({ id: url.split(/[?#]/)[0] as string, url, kind: "image", ...(name ? { name } : {}) });
  }
  return files;
}

function isAttachment(url: string, ownHost: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol !== "https:" && u.host !== ownHost) return false;
  if (u.hostname === "user-images.githubusercontent.com") return true;
  const assets = u.pathname.startsWith("/user-attachments/assets/");
  return assets && (u.hostname === "github.com" || u.host === ownHost);
}

/**
 * The picture into the blob store before deliver, or refused. GitHub does not send a webhook again
 * when it fails, so a picture that cannot be fetched (gone, private, a timeout) is left out with a
 * warning rather than failing the comment.
 */
export async function downloadImage(
  ctx: GatewayContext,
  file: PlatformFile,
  media: MediaPolicy | undefined,
  apiBaseUrl: string,
): Promise<AttachmentRef> {
  try {
    return await fetchPlatformFile(ctx, file, media, {
      gateway: "github",
      hosts: IMAGE_HOSTS,
      apiBaseUrl,
      refusedWarning: "picture download refused (off GitHub's attachment hosts)",
    });
  } catch (err) {
    ctx.logger.warn({ err, url: file.id }, "a picture of the comment could not be fetched; left out");
    return { refused: "failed", kind: file.kind, ...(file.name ? { name: file.name } : {}) };
  }
}
