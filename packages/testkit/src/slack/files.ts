// Files on the Slack fake, as Slack documents them (https://api.slack.com/messaging/files):
// - a bot uploads in three steps: files.getUploadURLExternal (`filename`, `length`; answers
//   `upload_url` and `file_id`, https://api.slack.com/methods/files.getUploadURLExternal), a POST of
//   the bytes to `upload_url` (raw or multipart), then files.completeUploadExternal (`files` as
//   `[{ id, title }]`, `channel_id`, `thread_ts`, `initial_comment`,
//   https://api.slack.com/methods/files.completeUploadExternal) which shares them;
// - a user's file reaches the bot as a file object whose `url_private` needs the bot token as
//   `Authorization: Bearer` (https://api.slack.com/types/file#authentication); without it Slack
//   answers a redirect to its sign-in page, not the bytes.
import type { ServerResponse } from "node:http";
import type { UploadedFile } from "../http-body.js";

/** One file the bot shared with completeUploadExternal. */
export interface SlackSharedFile {
  fileId: string;
  channel: string;
  threadTs?: string;
  title: string;
  name: string;
  bytes: Buffer;
  comment?: string;
}

interface Pending {
  name: string;
  length: number;
  bytes?: Buffer;
}

export type SlackFilesAnswer = Record<string, unknown> & { ok: boolean };

export class SlackFiles {
  /** Every file the bot shared, in order. */
  readonly shared: SlackSharedFile[] = [];
  /** How often each hosted file was downloaded with the bot token. */
  readonly downloads = new Map<string, number>();
  readonly #pending = new Map<string, Pending>();
  readonly #hosted = new Map<string, Buffer>();
  #next = 1;

  constructor(
    private readonly baseUrl: () => string,
    private readonly botToken: string,
  ) {}

  /**
   * Holds a user's file; returns the file object an event's `files` carries (fields per
   * https://api.slack.com/types/file).
   */
  host(bytes: Buffer, name: string, mimetype: string): Record<string, unknown> {
    const id = `F0USER${this.#next++}`;
    const path = `/files-pri/T0FAKE-${id}/${encodeURIComponent(name)}`;
    this.#hosted.set(path, bytes);
    return {
      id,
      name,
      title: name,
      mimetype,
      filetype: name.split(".").pop() ?? "binary",
      size: bytes.length,
      url_private: `${this.baseUrl()}${path}`,
      url_private_download: `${this.baseUrl()}${path}?download=1`,
    };
  }

  /** GET `url_private`: the bytes with the bot token, a redirect to sign-in without it. */
  serve(path: string, authorization: string | undefined, res: ServerResponse): void {
    const bytes = this.#hosted.get(path);
    if (authorization !== `Bearer ${this.botToken}`) {
      res.writeHead(302, { location: `${this.baseUrl()}/?redir=${encodeURIComponent(path)}` }).end();
      return;
    }
    if (!bytes) {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
      return;
    }
    this.downloads.set(path, (this.downloads.get(path) ?? 0) + 1);
    res
      .writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length })
      .end(bytes);
  }

  getUploadURL(p: Record<string, unknown>): SlackFilesAnswer {
    const length = Number(p.length);
    if (typeof p.filename !== "string" || !p.filename || !Number.isInteger(length) || length < 1)
      return { ok: false, error: "invalid_arguments" };
    const fileId = `F0BOT${this.#next++}`;
    this.#pending.set(fileId, { name: p.filename, length });
    return { ok: true, upload_url: `${this.baseUrl()}/upload/v1/${fileId}`, file_id: fileId };
  }

  /** The POST to `upload_url`: a raw body or a multipart `file` part. */
  receive(fileId: string, body: Buffer | UploadedFile, res: ServerResponse): void {
    const pending = this.#pending.get(fileId);
    if (!pending) {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
      return;
    }
    pending.bytes = Buffer.isBuffer(body) ? body : body.bytes;
    res.writeHead(200, { "content-type": "text/plain" }).end(`OK - ${pending.bytes.length}`);
  }

  complete(p: Record<string, unknown>): SlackFilesAnswer {
    const files = (typeof p.files === "string" ? JSON.parse(p.files) : p.files) as
      | { id?: string; title?: string }[]
      | undefined;
    if (!Array.isArray(files) || files.length === 0) return { ok: false, error: "invalid_arguments" };
    const taken: SlackSharedFile[] = [];
    for (const f of files) {
      const pending = this.#pending.get(String(f.id));
      // A file whose bytes never arrived (or that was shared already) cannot be completed.
      if (!pending?.bytes) return { ok: false, error: "file_not_found" };
      if (pending.bytes.length !== pending.length) return { ok: false, error: "file_upload_size_mismatch" };
      taken.push({
        fileId: String(f.id),
        channel: String(p.channel_id ?? ""),
        title: f.title ?? pending.name,
        name: pending.name,
        bytes: pending.bytes,
        ...(p.thread_ts ? { threadTs: String(p.thread_ts) } : {}),
        ...(typeof p.initial_comment === "string" ? { comment: p.initial_comment } : {}),
      });
    }
    for (const t of taken) this.#pending.delete(t.fileId);
    this.shared.push(...taken);
    return { ok: true, files: taken.map((t) => ({ id: t.fileId, title: t.title })) };
  }
}
