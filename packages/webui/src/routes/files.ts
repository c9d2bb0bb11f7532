// The page's files (issue #46): `POST /files` takes one upload (streamed into the blob store,
// bounded and typed by its bytes, the entry's `media` limits), `GET /files/<id>/<name>` serves a
// file back to a caller who uploaded it, behind the same gates as every other route. Who uploaded
// what is recorded as a download of the entry (media_downloads: gateway `webui:<entry>`, key
// `<userId>/<sha256>`), so a blob id learnt elsewhere opens nothing.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AgentsvcError,
  type AttachmentKind,
  type AttachmentRef,
  drainPastLimit,
  nodeBodyStream,
  unreadNodeRequest,
} from "@agentsvc/agent-core";
import type { BlobStore } from "@agentsvc/chat-store";
import type { MediaConfig } from "@agentsvc/config-schema";
import { INLINE_IMAGE_TYPES } from "@agentsvc/webhook-kit";
import { Hono } from "hono";
import { badInput, typeName } from "../errors.js";
import type { HonoEnv } from "../types.js";
import { spoolUpload } from "../upload-spool.js";

/** The header carrying the file's name (percent-encoded UTF-8: header values are Latin-1). */
export const FILE_NAME_HEADER = "x-file-name";
/** Most files one message carries. */
export const MAX_ATTACHMENTS = 10;
const MAX_NAME = 200;
const SHA256 = /^[0-9a-f]{64}$/;

const NOUN: Record<AttachmentKind, string> = {
  image: "pictures",
  audio: "audio",
  video: "videos",
  document: "documents",
};

export interface FileRouteDeps {
  blobs: BlobStore;
  /** The entry's `media` block; absent: no uploads (`POST /files` answers 403 `media_disabled`). */
  media?: MediaConfig;
}

/** The kind a media type belongs to. */
function kindOf(contentType: string): AttachmentKind {
  const top = contentType.split("/")[0];
  return top === "image" || top === "audio" || top === "video" ? top : "document";
}

/** A file name as shown and stored: no path, no control characters, at most 200 characters. */
function cleanFileName(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? "";
  const clean = base
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, MAX_NAME);
  return clean === "" ? "file" : clean;
}

function mediaDisabled(): AgentsvcError {
  return new AgentsvcError("media_disabled", "this chat takes no files (its entry has no media block)", 403);
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}

/** Who may open which file: the uploads a caller made, per entry. */
export class UploadIndex {
  constructor(
    private readonly blobs: BlobStore,
    private readonly gateway: string,
  ) {}

  record(userId: string, sha256: string): Promise<void> {
    return this.blobs.recordDownload(this.gateway, `${userId}/${sha256}`, { sha256 });
  }

  async owns(userId: string, sha256: string): Promise<boolean> {
    if (!SHA256.test(sha256)) return false;
    const known = await this.blobs.download(this.gateway, `${userId}/${sha256}`);
    return known !== undefined && "sha256" in known;
  }

  /**
   * A message's `attachments` (`[{ id, name }]`) as refs to stored blobs. Every id must be one of
   * the caller's uploads; anything else (a foreign or pruned id, a malformed entry) is 400.
   */
  async refsOf(where: string, userId: string, value: unknown): Promise<AttachmentRef[]> {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || value.length > MAX_ATTACHMENTS)
      throw badInput(
        `${where}: attachments: expected a list of at most ${MAX_ATTACHMENTS} files, got ${Array.isArray(value) ? `${value.length}` : typeName(value)}`,
      );
    const refs: AttachmentRef[] = [];
    for (const [i, item] of value.entries()) {
      const id = (item as { id?: unknown } | null)?.id;
      const name = (item as { name?: unknown } | null)?.name;
      if (typeof id !== "string" || !(await this.owns(userId, id)))
        throw badInput(`${where}: attachments[${i}].id: not a file you uploaded (upload it again)`);
      const info = await this.blobs.info(id);
      if (!info)
        throw badInput(`${where}: attachments[${i}].id: the file is no longer stored (upload it again)`);
      await this.blobs.touch(id);
      refs.push({
        blob: id,
        kind: kindOf(info.contentType),
        contentType: info.contentType,
        size: info.size,
        name: cleanFileName(typeof name === "string" ? name : "file"),
      });
    }
    return refs;
  }
}

export function fileRoutes(deps: FileRouteDeps, uploads: UploadIndex): Hono<HonoEnv> {
  const { blobs, media } = deps;
  const app = new Hono<HonoEnv>();

  app.post("/files", async (c) => {
    if (!media || media.types.length === 0) throw mediaDisabled();
    const limit = `the limit is ${formatBytes(media.maxBytes)}`;
    const tooLarge = (size?: number) => {
      // The rest of the file is drained first (agent-core's drainPastLimit), then the connection
      // closed: the page reads this answer and shows its line instead of a network error.
      c.header("Connection", "close");
      return new AgentsvcError(
        "file_too_large",
        `the file${size !== undefined ? ` (${formatBytes(size)})` : ""} is too large; ${limit}`,
        413,
      );
    };
    const rawName = c.req.header(FILE_NAME_HEADER);
    // A custom header a cross-site form cannot send (and fetch only with a CORS preflight we never answer).
    if (rawName === undefined) throw badInput(`POST /files: the ${FILE_NAME_HEADER} header is required`);
    let name: string;
    try {
      name = cleanFileName(decodeURIComponent(rawName));
    } catch {
      throw badInput(`POST /files: ${FILE_NAME_HEADER}: expected percent-encoded UTF-8`);
    }
    const declared = Number(c.req.header("content-length") ?? Number.NaN);
    // Under @hono/node-server straight from Node's request: a refusal (size or type) drains it.
    const incoming = unreadNodeRequest(c.env);
    if (Number.isFinite(declared) && declared > media.maxBytes) {
      if (incoming) drainPastLimit(incoming);
      throw tooLarge(declared);
    }
    if ((!incoming && !c.req.raw.body) || declared === 0) throw badInput("POST /files: the file is empty");
    const body = incoming ? nodeBodyStream(incoming) : (c.req.raw.body as ReadableStream<Uint8Array>);

    const spool = await mkdtemp(join(tmpdir(), "agentsvc-upload-"));
    try {
      const path = join(spool, "file");
      const got = await spoolUpload(body, path, media).catch((err: unknown) => {
        // The page removed the file (or left) mid-upload: nothing to answer, nothing to log. Read
        // from Node's request, its error ("aborted") comes before the request's signal is.
        if (c.req.raw.signal.aborted || (incoming !== undefined && incoming.errored !== null))
          throw new AgentsvcError("upload_aborted", "the upload was cancelled", 400);
        throw err;
      });
      if (!got.ok && got.refused === "size") throw tooLarge();
      if (!got.ok) {
        const allowed = media.types.map((t) => NOUN[t]).join(", ");
        throw new AgentsvcError(
          "unsupported_file_type",
          `this chat takes ${allowed}; the file is ${got.contentType}`,
          415,
        );
      }
      if (got.size === 0) throw badInput("POST /files: the file is empty");
      const stored = await blobs.putFile(path, got.contentType);
      const { userId } = c.get("identity");
      await uploads.record(userId, stored.sha256);
      // Not in a message yet: the page holds it, so the byte cap and retention must not take it.
      await blobs.holdUpload(stored.sha256);
      const file = {
        id: stored.sha256,
        name,
        contentType: got.contentType,
        kind: got.kind,
        size: stored.size,
      };
      return c.json({ success: true, file }, 201);
    } finally {
      await rm(spool, { recursive: true, force: true });
    }
  });

  app.get("/files/:id/:name", async (c) => {
    const id = c.req.param("id");
    const { userId } = c.get("identity");
    const notFound = () => new AgentsvcError("not_found", "no such file of yours", 404);
    // Not yours, unknown and pruned answer alike.
    if (!(await uploads.owns(userId, id))) throw notFound();
    const info = await blobs.info(id);
    if (!info) throw notFound();
    const name = cleanFileName(c.req.param("name"));
    const inline = INLINE_IMAGE_TYPES.has(info.contentType);
    const pieces = blobs.pieces(id);
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await pieces.next();
        if (next.done) controller.close();
        else controller.enqueue(new Uint8Array(next.value));
      },
      async cancel() {
        await pieces.return(undefined);
      },
    });
    return new Response(stream, {
      status: 200,
      headers: {
        // Never rendered as a page of ours: only a safe-list image shows inline; the rest downloads.
        "content-type": inline ? info.contentType : "application/octet-stream",
        "content-length": String(info.size),
        "content-disposition": `${inline ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(name)}`,
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox",
        "cache-control": "private, max-age=3600",
      },
    });
  });

  return app;
}
