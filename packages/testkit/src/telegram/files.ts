// Files on the Telegram fake, as the Bot API documents them:
// - a bot uploads with sendPhoto (https://core.telegram.org/bots/api#sendphoto: "at most 10 MB")
//   or sendDocument (https://core.telegram.org/bots/api#senddocument: "up to 50 MB") as
//   multipart/form-data (https://core.telegram.org/bots/api#sending-files), caption 0-1024 characters;
// - a user's file is fetched with getFile (https://core.telegram.org/bots/api#getfile: "up to 20MB",
//   a File with `file_path`) then GET `/file/bot<token>/<file_path>`, a link "valid for at least
//   1 hour"; the fake lets a test expire it (404, as an old link answers) to make the bot ask again.
import { randomBytes } from "node:crypto";
import type { UploadedFile } from "../http-body.js";
import type { MethodAnswer } from "./types.js";

const MB = 1024 * 1024;
const CAPTION_LIMIT = 1024;
/** getFile refuses bigger files: "file is too big". */
export const TELEGRAM_DOWNLOAD_LIMIT = 20 * MB;

/** One file the bot uploaded with sendPhoto or sendDocument. */
export interface TelegramSentFile {
  chatId: number;
  messageId: number;
  method: "sendPhoto" | "sendDocument";
  name: string;
  contentType: string;
  bytes: Buffer;
  caption?: string;
  threadId?: number;
}

/** A file a user sent, held by the fake until the bot downloads it. */
interface Hosted {
  fileId: string;
  uniqueId: string;
  bytes: Buffer;
  path: string;
  expired: boolean;
}

const bad = (description: string): MethodAnswer => ({
  ok: false,
  status: 400,
  description: `Bad Request: ${description}`,
});

export class TelegramFiles {
  /** Every file the bot uploaded, in order. */
  readonly sent: TelegramSentFile[] = [];
  /** How often each `file_path` was downloaded. */
  readonly downloads = new Map<string, number>();
  readonly #hosted = new Map<string, Hosted>();
  #next = 1;
  #stall: { at: number; reached: () => void } | undefined;

  /**
   * The next download sends its first `bytes` and then nothing more (the connection stays open):
   * a transfer caught halfway, for crash tests. Resolves once those bytes are written.
   */
  stallNextDownload(bytes: number): Promise<void> {
    return new Promise((reached) => {
      this.#stall = { at: bytes, reached };
    });
  }

  /** The pending stall, taken by the download it applies to. */
  takeStall(): { at: number; reached: () => void } | undefined {
    const stall = this.#stall;
    this.#stall = undefined;
    return stall;
  }

  constructor(readonly nextMessageId: () => number) {}

  /**
   * Holds a user's file; returns the ids a message's `photo`/`document`/`voice`/... carries
   * (https://core.telegram.org/bots/api#photosize, #document, #voice, #audio, #videonote).
   */
  host(bytes: Buffer, ext = "bin"): { file_id: string; file_unique_id: string; file_size: number } {
    const n = this.#next++;
    const fileId = `AgAC${randomBytes(12).toString("base64url")}${n}`;
    const hosted: Hosted = {
      fileId,
      uniqueId: `AQAD${n}`,
      bytes,
      path: `documents/file_${n}.${ext}`,
      expired: false,
    };
    this.#hosted.set(fileId, hosted);
    return { file_id: fileId, file_unique_id: hosted.uniqueId, file_size: bytes.length };
  }

  /** The download links handed out so far stop working (404); a new getFile gives a working one. */
  expireLinks(): void {
    for (const h of this.#hosted.values()) h.expired = true;
  }

  getFile(p: Record<string, unknown>): MethodAnswer {
    const hosted = this.#hosted.get(String(p.file_id ?? ""));
    if (!hosted) return bad("invalid file_id");
    if (hosted.bytes.length > TELEGRAM_DOWNLOAD_LIMIT) return bad("file is too big");
    hosted.expired = false;
    return {
      ok: true,
      result: {
        file_id: hosted.fileId,
        file_unique_id: hosted.uniqueId,
        file_size: hosted.bytes.length,
        file_path: hosted.path,
      },
    };
  }

  /** The bytes behind `/file/bot<token>/<path>`, or undefined (404) for an unknown or expired link. */
  download(path: string): Buffer | undefined {
    for (const h of this.#hosted.values()) {
      if (h.path !== path || h.expired) continue;
      this.downloads.set(path, (this.downloads.get(path) ?? 0) + 1);
      return h.bytes;
    }
    return undefined;
  }

  /** sendPhoto / sendDocument with the file as a multipart part (a file_id or URL string is not served here). */
  upload(method: "sendPhoto" | "sendDocument", p: Record<string, unknown>): MethodAnswer {
    if (p.chat_id === undefined) return bad("chat_id is empty");
    const field = method === "sendPhoto" ? "photo" : "document";
    const file = p[field] as UploadedFile | undefined;
    if (!file || typeof file !== "object" || !Buffer.isBuffer(file.bytes))
      return bad(`there is no ${field} in the request`);
    if (method === "sendPhoto" && file.bytes.length > 10 * MB) return bad("PHOTO_INVALID_DIMENSIONS");
    if (file.bytes.length > 50 * MB)
      return { ok: false, status: 413, description: "Request Entity Too Large" };
    const caption = typeof p.caption === "string" ? p.caption : undefined;
    if (caption && caption.length > CAPTION_LIMIT) return bad("message caption is too long");
    const sent: TelegramSentFile = {
      chatId: Number(p.chat_id),
      messageId: this.nextMessageId(),
      method,
      name: file.name,
      contentType: file.type,
      bytes: file.bytes,
      ...(caption ? { caption } : {}),
      ...(p.message_thread_id !== undefined ? { threadId: Number(p.message_thread_id) } : {}),
    };
    this.sent.push(sent);
    const ids = this.host(file.bytes);
    const media =
      method === "sendPhoto"
        ? { photo: [{ ...ids, width: 1, height: 1 }] }
        : { document: { ...ids, file_name: file.name, mime_type: file.type } };
    return {
      ok: true,
      result: {
        message_id: sent.messageId,
        chat: { id: sent.chatId, type: sent.chatId > 0 ? "private" : "supergroup" },
        date: Math.floor(Date.now() / 1000),
        ...media,
        ...(caption ? { caption } : {}),
      },
    };
  }
}
