// Voice notes as text: testkit's fake of OpenAI's POST /v1/audio/transcriptions (multipart, errors as
// documented; sources in src/providers/transcriptions.ts), agent-core's createTranscriber through the
// AI SDK's OpenAI provider, and a turn whose audio is transcribed before its first model call.
import { createHash } from "node:crypto";
import {
  type AttachmentRef,
  createTranscriber,
  defineAgent,
  resolveModel,
  RunManager,
  type TranscribeAttachment,
  WindowMemory,
} from "@agentsvc/agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { FakeOpenAI, FakeTranscriptions, OPENAI_TEST_KEY, TRANSCRIPTION_MAX_BYTES } from "../src/index.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(200, 5)]);
const auth = { authorization: `Bearer ${OPENAI_TEST_KEY}` };

function form(fields: Record<string, string>, file?: { name: string; bytes: Uint8Array }): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  if (file) f.append("file", new File([file.bytes], file.name));
  return f;
}

async function started(): Promise<FakeTranscriptions> {
  const fake = await FakeTranscriptions.start();
  closers.push(() => fake.close());
  return fake;
}

describe("FakeTranscriptions: POST /v1/audio/transcriptions", () => {
  it("answers { text } for an OGG file, and refuses a missing file, an unknown format, a file over 25 MB and a queued 429", async () => {
    const fake = await started();
    const url = `${fake.baseURL}/audio/transcriptions`;
    const send = (body: FormData) => fetch(url, { method: "POST", headers: auth, body });
    const ok = await send(form({ model: "whisper-1" }, { name: "voice.ogg", bytes: OGG }));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ text: "transcribed speech" });
    const missing = await send(form({ model: "whisper-1" }));
    expect(missing.status).toBe(400);
    const exe = await send(form({ model: "whisper-1" }, { name: "voice.exe", bytes: OGG }));
    expect(exe.status).toBe(400);
    expect(((await exe.json()) as { error: { message: string } }).error.message).toMatch(
      /^Invalid file format/,
    );
    const big = await send(
      form({ model: "whisper-1" }, { name: "long.wav", bytes: new Uint8Array(TRANSCRIPTION_MAX_BYTES + 1) }),
    );
    expect(big.status).toBe(413);
    fake.enqueue({ status: 429, retryAfterSeconds: 2 });
    const limited = await send(form({ model: "whisper-1" }, { name: "voice.ogg", bytes: OGG }));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
  });
});

describe("createTranscriber", () => {
  it("sends the audio as a multipart file named by its type to the configured model and returns the text", async () => {
    const fake = await started();
    fake.enqueue({ text: "  call me at nine  " });
    const t = createTranscriber(
      { model: "openai/whisper-1", baseURL: fake.baseURL },
      { env: { OPENAI_API_KEY: OPENAI_TEST_KEY } },
    );
    expect(t.model).toBe("openai/whisper-1");
    expect(await t.transcribe(OGG, "audio/ogg")).toBe("call me at nine");
    expect(fake.requests[0]).toMatchObject({
      status: 200,
      model: "whisper-1",
      fileName: "audio.ogg",
      size: OGG.length,
    });
  });

  it("names the missing key and refuses a provider without transcription", () => {
    expect(() => createTranscriber("openai/whisper-1", { env: {} })).toThrow(/OPENAI_API_KEY is not set/);
    expect(() => createTranscriber("anthropic/claude-sonnet-4-5", { env: {} })).toThrow(
      /media.transcriptionModel/,
    );
  });
});

describe("a turn's voice note", () => {
  it("is transcribed before the first model call: the model reads the transcript, memory keeps it on the message, a failure leaves the note", async () => {
    const whisper = await started();
    const chat = await FakeOpenAI.start();
    closers.push(() => chat.close());
    const env = { OPENAI_API_KEY: OPENAI_TEST_KEY };
    const t = createTranscriber({ model: "openai/whisper-1", baseURL: whisper.baseURL }, { env });
    const blobs = new Map<string, Uint8Array>();
    const transcribe: TranscribeAttachment = async (file) => {
      const bytes = blobs.get(file.blob);
      return bytes ? t.transcribe(bytes, file.contentType) : undefined;
    };
    const model = { model: "openai/gpt-4o", baseURL: chat.baseURL } as const;
    const memory = new WindowMemory();
    const runs = new RunManager({
      agent: defineAgent({ name: "a", model }),
      model: resolveModel(model, { env }),
      memory,
      env,
      blobs: { read: async (sha) => blobs.get(sha) },
      transcribe,
    });
    const blob = createHash("sha256").update(OGG).digest("hex");
    blobs.set(blob, OGG);
    const voice: AttachmentRef = { blob, kind: "audio", contentType: "audio/ogg", size: OGG.length };
    whisper.enqueue({ text: "what's the weather" }, { status: 500 });
    const first = await runs.start({ input: "", attachments: [voice], userId: "u", conversationId: "c" })
      .done;
    expect(first.status).toBe("completed");
    const sent = JSON.stringify(chat.requests[0]?.body);
    expect(sent).toContain("[The user sent an audio file; its transcript: what's the weather]");
    expect(sent).not.toContain("input_audio");
    const [stored] = await memory.load({ userId: "u", conversationId: "c" });
    expect(stored).toEqual({
      role: "user",
      content: "",
      attachments: [{ ...voice, transcript: "what's the weather" }],
    });
    // The transcription model fails (500, after the provider's own retries): the turn still runs, on the note.
    const second = await runs.start({
      input: "and?",
      attachments: [voice],
      userId: "u",
      conversationId: "c2",
    }).done;
    expect(second.status).toBe("completed");
    expect(JSON.stringify(chat.requests[1]?.body)).toContain("[The user attached an audio file (audio/ogg");
  });
});
