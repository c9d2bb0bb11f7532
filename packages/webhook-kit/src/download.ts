// Fetching a platform's file into the blob store (issue #46), the one way every adapter does it:
// only from the hosts the adapter names (each redirect hop checked too; credentials kept on their
// origin, never down from https to http), bounded in bytes (a declared Content-Length over the cap
// is refused before reading; the count is kept while the body streams) and in time (one deadline
// for the whole transfer), typed by its first bytes (not the platform's claim), spooled to a
// temporary file (memory stays at one read), stored by sha256 and recorded per gateway and
// platform file, so a redelivered message downloads nothing twice. Call it before
// `context.deliver`, whose inbox record then carries the refs.
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AttachmentKind,
  type AttachmentRef,
  attachmentKindOf,
  type RefusedReason,
  type SessionBlobs,
} from "@agentsvc/adapter-kit";
import { SNIFF_BYTES, type Sniffed, sniff } from "./sniff.js";

export interface AttachmentSource {
  /** The platform's stable id of the file (file_id, media id, attachment id): the dedup key. */
  sourceKey: string;
  url: string;
  /** What the platform says it is (used to refuse early; the bytes decide in the end). */
  kind: AttachmentKind;
  name?: string;
  /** What the platform says the size is: over the cap, nothing is fetched. */
  size?: number;
  /** Authentication the platform's file URL needs (a bot token, a bearer, Basic auth). */
  headers?: Record<string, string>;
}

export interface AttachmentPolicy {
  /** Kinds the entry takes in (its `media.types`); empty: none. */
  types: readonly AttachmentKind[];
  maxBytes: number;
  /**
   * Hosts files may come from: exact names, or `.example.com` for any subdomain. The adapter's
   * platform hosts (and its configured API base URL's host, so fakes on 127.0.0.1 work).
   */
  allowedHosts: readonly string[];
  /** Whole-transfer deadline. Default 60 s. */
  timeoutMs?: number;
  /** Redirect hops followed (each checked against `allowedHosts`). Default 3. */
  maxRedirects?: number;
}

/** Thrown for a refused host or scheme: an adapter bug or a hostile payload, never retried. */
export class DownloadRefused extends Error {}

/**
 * The file's host answered an HTTP error: `status` lets an adapter tell a file that is gone for good
 * (an expired signed URL, a deleted file: 403/404/410) from one worth asking for again (5xx).
 */
export class DownloadFailed extends Error {
  constructor(readonly status: number) {
    super(`fetching a file answered HTTP ${status}`);
  }
}

/**
 * The attachment as a ref for `Inbound.attachments`: stored (or found stored from an earlier
 * delivery), or refused with why. Transport failures (timeouts, 5xx) throw, so the platform's
 * retry tries again; a message is acknowledged only after its refs are recorded.
 */
export async function fetchAttachment(
  store: { blobs: SessionBlobs; gateway: string },
  source: AttachmentSource,
  policy: AttachmentPolicy,
  fetchImpl: typeof fetch = fetch,
): Promise<AttachmentRef> {
  const { blobs, gateway } = store;
  const named = source.name ? { name: source.name } : {};
  const earlier = await earlierDownload(blobs, gateway, source.sourceKey, source.name);
  if (earlier.stored) return earlier.stored;
  if (earlier.refused) return { refused: earlier.refused as RefusedReason, kind: source.kind, ...named };
  const refuse = async (refused: "disabled" | "type" | "size", size?: number): Promise<AttachmentRef> => {
    await blobs.recordDownload(gateway, source.sourceKey, { refused });
    return { refused, kind: source.kind, ...named, ...(size !== undefined ? { size } : {}) };
  };
  if (policy.types.length === 0) return refuse("disabled");
  // A platform's "document" may be a picture sent uncompressed: the bytes decide for those.
  if (!policy.types.includes(source.kind) && source.kind !== "document") return refuse("type");
  if (source.size !== undefined && source.size > policy.maxBytes) return refuse("size", source.size);
  const spool = await mkdtemp(join(tmpdir(), "agentsvc-media-"));
  try {
    const got = await download(source, policy, join(spool, "file"), fetchImpl);
    if (!got.ok) return refuse(got.refused, got.size);
    const stored = await blobs.putFile(got.path, got.contentType);
    await blobs.recordDownload(gateway, source.sourceKey, { sha256: stored.sha256 });
    return { blob: stored.sha256, kind: got.kind, contentType: got.contentType, size: stored.size, ...named };
  } finally {
    await rm(spool, { recursive: true, force: true });
  }
}

/**
 * What an earlier delivery of the same platform file left (a redelivered message): its ref when its
 * blob is still stored, or the reason it was refused; nothing when it was never recorded (or its
 * blob is gone: fetch it again).
 */
export async function earlierDownload(
  blobs: SessionBlobs,
  gateway: string,
  sourceKey: string,
  name?: string,
): Promise<{ stored?: AttachmentRef; refused?: string }> {
  const known = await blobs.download(gateway, sourceKey);
  if (known && "sha256" in known) {
    const info = await blobs.info(known.sha256);
    if (!info) return {};
    return {
      stored: {
        blob: info.sha256,
        kind: attachmentKindOf(info.contentType),
        contentType: info.contentType,
        size: info.size,
        ...(name ? { name } : {}),
      },
    };
  }
  return known ? { refused: known.refused } : {};
}

type Downloaded =
  | { ok: true; path: string; contentType: string; kind: AttachmentKind }
  | { ok: false; refused: "type" | "size"; size?: number };

async function download(
  source: AttachmentSource,
  policy: AttachmentPolicy,
  path: string,
  fetchImpl: typeof fetch,
): Promise<Downloaded> {
  const signal = AbortSignal.timeout(policy.timeoutMs ?? 60_000);
  let url = source.url;
  let headers = source.headers ?? {};
  for (let hop = 0; ; hop++) {
    checkHost(url, policy.allowedHosts);
    const res = await fetchImpl(url, { headers, redirect: "manual", signal });
    if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
      await res.body?.cancel();
      if (hop >= (policy.maxRedirects ?? 3))
        throw new Error(`more than ${policy.maxRedirects ?? 3} redirects fetching a file`);
      const here = new URL(url);
      const next = new URL(res.headers.get("location") as string, here);
      // Never down to plain http: the next URL (often a signed, short-lived one: Twilio's CDN, S3)
      // and the file's bytes would cross the network readable and alterable.
      if (here.protocol === "https:" && next.protocol === "http:")
        throw new DownloadRefused(`refused a redirect from https to http (${next.host}) fetching a file`);
      // Credentials stay on the origin they were given for (scheme, host and port, fetch's rule),
      // never where it redirects (a CDN's signed URL), nor the same host under another scheme or port.
      if (next.origin !== here.origin) headers = {};
      url = next.toString();
      continue;
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new DownloadFailed(res.status);
    }
    const declared = Number(res.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(declared) && declared > policy.maxBytes) {
      await res.body.cancel();
      return { ok: false, refused: "size", size: declared };
    }
    return spoolBody(res.body, policy, path);
  }
}

async function spoolBody(
  body: ReadableStream<Uint8Array>,
  policy: AttachmentPolicy,
  path: string,
): Promise<Downloaded> {
  const out = createWriteStream(path);
  const reader = body.getReader();
  let size = 0;
  let head = new Uint8Array(0);
  let sniffed: Sniffed | undefined;
  const write = (chunk: Uint8Array) =>
    new Promise<void>((resolve, reject) => out.write(chunk, (err) => (err ? reject(err) : resolve())));
  const typeOk = (s: Sniffed) => policy.types.includes(s.kind);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > policy.maxBytes) {
        await reader.cancel();
        return { ok: false, refused: "size", size };
      }
      if (!sniffed) {
        const joined = new Uint8Array(head.length + value.length);
        joined.set(head);
        joined.set(value, head.length);
        head = joined;
        if (head.length >= SNIFF_BYTES) {
          sniffed = await sniff(head);
          if (!typeOk(sniffed)) {
            await reader.cancel();
            return { ok: false, refused: "type" };
          }
        }
      }
      await write(value);
    }
    sniffed ??= await sniff(head);
    if (!typeOk(sniffed)) return { ok: false, refused: "type" };
    return { ok: true, path, ...sniffed };
  } finally {
    await new Promise<void>((resolve) => out.end(resolve));
  }
}

function checkHost(url: string, allowed: readonly string[]): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DownloadRefused(`not a URL: ${url.slice(0, 100)}`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new DownloadRefused(`refused to fetch a file over ${parsed.protocol}`);
  }
  const host = parsed.hostname.toLowerCase();
  const ok = allowed.some((a) => {
    const rule = a.toLowerCase();
    return rule.startsWith(".") ? host.endsWith(rule) && host.length > rule.length : host === rule;
  });
  if (!ok) throw new DownloadRefused(`refused to fetch a file from ${host}: not one of the platform's hosts`);
}
