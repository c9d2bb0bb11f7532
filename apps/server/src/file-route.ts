// Signed short-lived URLs of stored files (issue #46), for platforms that fetch a reply's file by
// URL (Twilio `MediaUrl`): the session's outbox signs them (OutboxOptions.fileUrl) and this route
// serves them. The HMAC key is AGENTSVC_FILE_URL_SECRET when set (the same on every instance, so
// any instance serves a URL another signed); else a random key of this process (one instance).
import { randomBytes } from "node:crypto";
import type { SessionBlobs } from "@agentsvc/session-core";
import { FILES_PATH, type FileUrls, fileUrls } from "@agentsvc/webhook-kit";
import type { Hono } from "hono";

export const FILE_URL_SECRET_ENV = "AGENTSVC_FILE_URL_SECRET";

/** The signer, when the service has a public base URL a platform can fetch from. */
export function fileUrlsFor(publicBaseUrl: string | undefined, env: NodeJS.ProcessEnv): FileUrls | undefined {
  if (!publicBaseUrl) return undefined;
  const secret = env[FILE_URL_SECRET_ENV] || randomBytes(32);
  return fileUrls({ baseUrl: publicBaseUrl, secret });
}

export function mountFileRoute(app: Hono, urls: FileUrls, blobs: SessionBlobs): void {
  app.get(`${FILES_PATH}/:blob/:name`, (c) => urls.serve(new URL(c.req.url), blobs));
}
