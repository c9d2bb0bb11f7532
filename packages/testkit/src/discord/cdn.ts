// A user's attachments on the Discord fake, served as Discord's CDN serves them
// (https://discord.com/developers/docs/reference#signed-attachment-cdn-urls): the attachment
// object's `url` carries `ex` (expiry, hex Unix seconds), `is` (issued) and `hm` (a signature); an
// expired or unsigned URL is refused ("This content is no longer available.", 404). No
// Authorization header is needed: the signature is the credential. Attachment fields per
// https://discord.com/developers/docs/resources/message#attachment-object.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { ServerResponse } from "node:http";

export class DiscordCdn {
  /** How often each hosted attachment was downloaded with a valid URL. */
  readonly downloads = new Map<string, number>();
  readonly #hosted = new Map<string, Buffer>();
  readonly #key = Buffer.from(`cdn-${Math.random()}`);

  constructor(
    private readonly baseUrl: () => string,
    private readonly nextId: () => string,
  ) {}

  /** Holds a user's file; returns the attachment object a MESSAGE_CREATE carries, its URL valid `ttlSeconds`. */
  host(
    bytes: Buffer,
    filename: string,
    contentType: string,
    channelId: string,
    ttlSeconds = 86_400,
  ): Record<string, unknown> {
    const id = this.nextId();
    const path = `/attachments/${channelId}/${id}/${encodeURIComponent(filename)}`;
    this.#hosted.set(path, bytes);
    const now = Math.floor(Date.now() / 1000);
    const query = this.#sign(path, now + ttlSeconds, now);
    return {
      id,
      filename,
      size: bytes.length,
      content_type: contentType,
      url: `${this.baseUrl()}${path}?${query}`,
      proxy_url: `${this.baseUrl()}${path}?${query}`,
    };
  }

  /** GET an attachment path: the bytes while the URL's signature holds and `ex` is in the future. */
  serve(path: string, query: URLSearchParams, res: ServerResponse): void {
    const bytes = this.#hosted.get(path);
    const ex = Number.parseInt(query.get("ex") ?? "", 16);
    const is = Number.parseInt(query.get("is") ?? "", 16);
    const expected = new URLSearchParams(this.#sign(path, ex, is)).get("hm") ?? "";
    const hm = query.get("hm") ?? "";
    const signed = hm.length === expected.length && timingSafeEqual(Buffer.from(hm), Buffer.from(expected));
    if (!bytes || !signed || !(ex * 1000 > Date.now())) {
      res.writeHead(404, { "content-type": "text/plain" }).end("This content is no longer available.");
      return;
    }
    this.downloads.set(path, (this.downloads.get(path) ?? 0) + 1);
    res
      .writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length })
      .end(bytes);
  }

  #sign(path: string, ex: number, is: number): string {
    const hm = createHmac("sha256", this.#key).update(`${path}:${ex}:${is}`).digest("hex");
    return `ex=${ex.toString(16)}&is=${is.toString(16)}&hm=${hm}`;
  }
}
