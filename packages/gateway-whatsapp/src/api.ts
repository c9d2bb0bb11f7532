// The one outbound call: POST <apiBaseUrl>/<apiVersion>/<phone-number-id>/messages with a bearer
// token. A failure goes through the session's classifier with WhatsApp's own codes first
// (https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes).
import {
  type FailureFacts,
  fetchForSend,
  parseAnswer,
  type PlatformRule,
  sendFailure,
} from "@agentsvc/adapter-kit";

export interface GraphTarget {
  apiBaseUrl: string;
  apiVersion: string;
  phoneNumberId: string;
  accessToken: string;
  /** The variable holding the access token, named when Graph rejects it. */
  accessTokenEnvVar: string;
}

/** Throughput and rate-limit codes Graph answers with a 4xx body: wait, then retry. */
const THROTTLE_CODES = new Set<FailureFacts["code"]>([4, 80007, 130429, 131056]);
/** 190: the access token expired, was revoked or is malformed. */
const TOKEN_INVALID = 190;

export const graphRule: PlatformRule = (facts: FailureFacts) => {
  if (facts.code === TOKEN_INVALID) return { kind: "credentials" };
  if (THROTTLE_CODES.has(facts.code))
    // Graph sends no Retry-After with these: wait a second rather than the first backoff step.
    return { kind: "retry", ...(facts.retryAfter ? {} : { retryAfterMs: 1_000 }) };
  return undefined;
};

export async function postMessage(
  target: GraphTarget,
  message: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const url = `${target.apiBaseUrl.replace(/\/$/, "")}/${target.apiVersion}/${encodeURIComponent(target.phoneNumberId)}/messages`;
  const call = {
    platform: "whatsapp",
    call: "messages call",
    envVar: target.accessTokenEnvVar,
    platformRule: graphRule,
  };
  const res = await fetchForSend(
    url,
    {
      method: "POST",
      headers: { authorization: `Bearer ${target.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ messaging_product: "whatsapp", recipient_type: "individual", ...message }),
    },
    call,
    signal,
  );
  const text = await res.text();
  const body = parseAnswer<{ messages: { id?: string }[]; error: { code?: number; message?: string } }>(text);
  if (!res.ok) {
    const code = body.error?.code;
    throw sendFailure(
      {
        status: res.status,
        retryAfter: res.headers.get("retry-after"),
        // Stryker disable next-line ConditionalExpression: an absent code and `code: undefined` classify alike
        ...(code !== undefined ? { code } : {}),
        // The failure keeps the first 300 characters.
        detail: body.error?.message ?? text,
      },
      call,
    );
  }
  return body.messages?.[0]?.id;
}

/** What GET /<version>/<media id> answers (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#retrieve-media-url). */
export interface MediaUrl {
  url: string;
  mime_type?: string;
  file_size?: number;
}

/**
 * A media id's download URL, valid for 5 minutes, so it is asked for right before the download.
 * Throws on any failure: the webhook then answers an error and Meta delivers the message again.
 */
export async function mediaUrl(
  target: GraphTarget,
  mediaId: string,
  signal?: AbortSignal,
): Promise<MediaUrl> {
  const url = `${target.apiBaseUrl.replace(/\/$/, "")}/${target.apiVersion}/${encodeURIComponent(mediaId)}`;
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${target.accessToken}` },
    signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(30_000)]) : AbortSignal.timeout(30_000),
  });
  const body = (await res.json().catch(() => ({}))) as Partial<MediaUrl>;
  if (!res.ok || typeof body.url !== "string")
    throw new Error(
      `whatsapp media ${mediaId}: ${res.status} ${res.ok ? "no url in the answer" : res.statusText}`,
    );
  return {
    url: body.url,
    ...(typeof body.mime_type === "string" ? { mime_type: body.mime_type } : {}),
    ...(typeof body.file_size === "number" ? { file_size: body.file_size } : {}),
  };
}

/**
 * Uploads one file of a reply (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#upload-media):
 * multipart `messaging_product`, `type`, `file`; answers the media id a message then names.
 * Failures are classified like the messages call (the outbox retries or gives up).
 */
export async function uploadMedia(
  target: GraphTarget,
  file: { bytes: Buffer; contentType: string; name: string },
  signal?: AbortSignal,
): Promise<string> {
  const url = `${target.apiBaseUrl.replace(/\/$/, "")}/${target.apiVersion}/${encodeURIComponent(target.phoneNumberId)}/media`;
  const call = {
    platform: "whatsapp",
    call: "media upload",
    envVar: target.accessTokenEnvVar,
    platformRule: graphRule,
  };
  const form = new FormData();
  form.set("messaging_product", "whatsapp");
  form.set("type", file.contentType);
  form.set("file", new Blob([new Uint8Array(file.bytes)], { type: file.contentType }), file.name);
  const res = await fetchForSend(
    url,
    { method: "POST", headers: { authorization: `Bearer ${target.accessToken}` }, body: form },
    call,
    signal,
  );
  const body = (await res.json().catch(() => ({}))) as {
    id?: string;
    error?: { code?: number; message?: string };
  };
  if (!res.ok || typeof body.id !== "string") {
    const code = body.error?.code;
    throw sendFailure(
      {
        status: res.status,
        retryAfter: res.headers.get("retry-after"),
        ...(code !== undefined ? { code } : {}),
        detail: body.error?.message ?? "no media id in the answer",
      },
      call,
    );
  }
  return body.id;
}
