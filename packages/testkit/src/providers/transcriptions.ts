// OpenAI's speech-to-text route on 127.0.0.1: POST /v1/audio/transcriptions, multipart/form-data
// with `file` (required; its file name's extension names the format: flac, m4a, mp3, mp4, mpeg, mpga,
// oga, ogg, wav, webm; at most 25 MB) and `model` (required), optional `language`, `prompt`,
// `response_format` (json default, text, verbose_json), `temperature`
// (https://platform.openai.com/docs/api-reference/audio/createTranscription,
// https://platform.openai.com/docs/guides/speech-to-text). Answers `{ text }` (verbose_json adds task,
// language, duration, segments). Errors as the API spells them
// (https://platform.openai.com/docs/guides/error-codes): 400 invalid_request_error for a missing field
// or an unsupported format, 413 past the size limit, 429 with retry-after when a test queues it.
// Groq serves the same route under /openai/v1 (https://console.groq.com/docs/speech-to-text).
import type { IncomingMessage, ServerResponse } from "node:http";
import { readBody } from "../http-util.js";
import { type FakeServer, listenLocal } from "../server.js";
import { sameKey } from "./core.js";
import { OPENAI_TEST_KEY } from "./openai.js";

const FORMATS = ["flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "wav", "webm"];
/** 25 MB, the documented file limit. */
export const TRANSCRIPTION_MAX_BYTES = 25 * 1024 * 1024;

/** One request the fake took in (refused ones too). */
export interface TranscriptionRequest {
  status: number;
  model?: string;
  fileName?: string;
  /** Bytes of the uploaded file. */
  size?: number;
  language?: string;
  responseFormat?: string;
}

/** What the next request gets: its transcript, or a scripted refusal. */
export type TranscriptionStep =
  | { text: string }
  | { status: 400 | 413 | 429 | 500; retryAfterSeconds?: number };

export interface FakeTranscriptionsOptions {
  /** The key accepted (Bearer); `false` accepts any. Default OPENAI_TEST_KEY. */
  apiKey?: string | false;
  /** The transcript when nothing is queued. Default "transcribed speech". */
  text?: string;
}

const error = (
  status: number,
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
) => ({
  status,
  body: { error: { message, type, param, code } },
});

export class FakeTranscriptions {
  readonly requests: TranscriptionRequest[] = [];
  readonly #queue: TranscriptionStep[] = [];
  readonly #apiKey: string | false;
  readonly #text: string;
  #server: FakeServer | undefined;

  private constructor(options: FakeTranscriptionsOptions) {
    this.#apiKey = options.apiKey ?? OPENAI_TEST_KEY;
    this.#text = options.text ?? "transcribed speech";
  }

  static async start(options: FakeTranscriptionsOptions = {}): Promise<FakeTranscriptions> {
    const fake = new FakeTranscriptions(options);
    fake.#server = await listenLocal((req, res) => {
      void fake.#serve(req, res).catch(() => res.destroy());
    });
    return fake;
  }

  /** The base URL the AI SDK's OpenAI provider takes (`baseURL`). */
  get baseURL(): string {
    if (!this.#server) throw new Error("FakeTranscriptions is not started");
    return `${this.#server.url}/v1`;
  }

  /** Queues what the next requests get, in order. */
  enqueue(...steps: TranscriptionStep[]): this {
    this.#queue.push(...steps);
    return this;
  }

  async close(): Promise<void> {
    await this.#server?.close();
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const record: TranscriptionRequest = { status: 0 };
    this.requests.push(record);
    const answer = (refusal: { status: number; body: unknown }, headers: Record<string, string> = {}) => {
      record.status = refusal.status;
      res
        .writeHead(refusal.status, { "content-type": "application/json", ...headers })
        .end(JSON.stringify(refusal.body));
    };
    if (req.method !== "POST" || req.url?.split("?")[0] !== "/v1/audio/transcriptions")
      return answer(error(404, `Invalid URL (${req.method} ${req.url})`, "invalid_request_error", null));
    if (this.#apiKey !== false && !sameKey(req.headers.authorization?.replace(/^Bearer /, ""), this.#apiKey))
      return answer(error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key"));
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > TRANSCRIPTION_MAX_BYTES + 64 * 1024) {
      req.resume();
      return answer(
        error(
          413,
          `Maximum content size limit (${TRANSCRIPTION_MAX_BYTES}) exceeded (${declared} bytes read)`,
          "server_error",
          null,
        ),
      );
    }
    const raw = await readBody(req);
    let form: FormData;
    try {
      form = await new Response(raw, {
        headers: { "content-type": String(req.headers["content-type"]) },
      }).formData();
    } catch {
      return answer(error(400, "Could not parse multipart form", "invalid_request_error", null));
    }
    const file = form.get("file");
    const model = form.get("model");
    record.model = typeof model === "string" ? model : undefined;
    record.language = (form.get("language") as string | null) ?? undefined;
    record.responseFormat = (form.get("response_format") as string | null) ?? undefined;
    if (!(file instanceof File))
      return answer(
        error(
          400,
          "1 validation error for Request\nbody -> file\n  field required (type=value_error.missing)",
          "invalid_request_error",
          null,
        ),
      );
    if (!record.model)
      return answer(error(400, "you must provide a model parameter", "invalid_request_error", null));
    record.fileName = file.name;
    record.size = file.size;
    const ext = file.name.split(".").pop()?.toLowerCase() ?? "";
    if (!FORMATS.includes(ext))
      return answer(
        error(
          400,
          `Invalid file format. Supported formats: ${JSON.stringify(FORMATS).replaceAll('"', "'")}`,
          "invalid_request_error",
          null,
        ),
      );
    if (file.size > TRANSCRIPTION_MAX_BYTES)
      return answer(
        error(
          413,
          `Maximum content size limit (${TRANSCRIPTION_MAX_BYTES}) exceeded (${file.size} bytes read)`,
          "server_error",
          null,
        ),
      );
    const step = this.#queue.shift() ?? { text: this.#text };
    if ("status" in step) {
      if (step.status === 429)
        return answer(
          error(
            429,
            "Rate limit reached for whisper-1 on requests per min (RPM): Limit 3, Used 3, Requested 1.",
            "requests",
            "rate_limit_exceeded",
          ),
          { "retry-after": String(step.retryAfterSeconds ?? 1) },
        );
      if (step.status === 413)
        return answer(
          error(
            413,
            `Maximum content size limit (${TRANSCRIPTION_MAX_BYTES}) exceeded`,
            "server_error",
            null,
          ),
        );
      if (step.status === 400)
        return answer(
          error(
            400,
            "Audio file might be corrupted or unsupported",
            "invalid_request_error",
            "invalid_value",
            "file",
          ),
        );
      return answer(
        error(
          500,
          "The server had an error while processing your request. Sorry about that!",
          "server_error",
          null,
        ),
      );
    }
    record.status = 200;
    if (record.responseFormat === "text") {
      res.writeHead(200, { "content-type": "text/plain" }).end(step.text);
      return;
    }
    const body =
      record.responseFormat === "verbose_json"
        ? {
            task: "transcribe",
            language: record.language ?? "english",
            duration: 2.5,
            text: step.text,
            segments: [
              {
                id: 0,
                seek: 0,
                start: 0,
                end: 2.5,
                text: step.text,
                tokens: [],
                temperature: 0,
                avg_logprob: -0.2,
                compression_ratio: 1,
                no_speech_prob: 0.01,
              },
            ],
          }
        : { text: step.text, usage: { type: "duration", seconds: 3 } };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  }
}
