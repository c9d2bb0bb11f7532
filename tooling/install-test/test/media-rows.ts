// Rows for the `media` block through the installed bin (issue #46): files a Telegram user sends
// reach an OpenAI model as file parts, and voice notes as transcripts quoted above the reply.
import { eventually, FakeOpenAI, FakeTranscriptions, OPENAI_TEST_KEY, TelegramFake } from "@agentsvc/testkit";
import { expect } from "vitest";
import type { BlockRow } from "./block-rows.js";

const REPLY_MS = 20_000;
const JPEG = Buffer.concat([Buffer.from("ffd8ffe000104a464946", "hex"), Buffer.alloc(3000, 9)]);
const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(3000, 4)]);

export const MEDIA_ROWS: BlockRow[] = [
  {
    block: "gateways/telegram.yaml media (types, transcribe, transcriptionModel) with an OpenAI model",
    behaviour:
      "a photo reaches gpt-4o as an image part read from the store; a voice note is transcribed once, the model reads the transcript and the reply quotes it",
    async run(ctx) {
      const telegram = await TelegramFake.start();
      const openai = await FakeOpenAI.start({ fallback: { text: ["Noted."] } });
      const whisper = await FakeTranscriptions.start({ text: "remind me about the picture" });
      ctx.cleanup(() => telegram.close());
      ctx.cleanup(() => openai.close());
      ctx.cleanup(() => whisper.close());
      ctx.write({
        "agents/assistant.ts": `import { defineAgent } from "@agentsvc/agent-core";\nexport default defineAgent({ name: "assistant", model: { model: "openai/gpt-4o", baseURL: "${openai.baseURL}" } });\n`,
        "gateways/telegram.yaml": [
          "type: telegram",
          "botTokenEnvVar: TELEGRAM_BOT_TOKEN",
          `apiBaseUrl: ${telegram.url}`,
          "media:",
          "  types: [image, audio]",
          "  transcribe: true",
          `  transcriptionModel: { model: openai/whisper-1, baseURL: "${whisper.baseURL}" }`,
          "",
        ].join("\n"),
      });
      await ctx.start({ env: { TELEGRAM_BOT_TOKEN: telegram.token, OPENAI_API_KEY: OPENAI_TEST_KEY } });
      const send = (id: number, fields: Record<string, unknown>) =>
        telegram.pushUpdate({
          message: {
            message_id: id,
            from: { id: 6161, is_bot: false, first_name: "Ada" },
            chat: { id: 6161, type: "private" },
            date: Math.floor(Date.now() / 1000),
            ...fields,
          },
        });
      send(1, {
        photo: [{ ...telegram.files.host(JPEG, "jpg"), width: 1, height: 1 }],
        caption: "what is this?",
      });
      await eventually(() => telegram.chat.botMessages.length >= 1, "the reply to the photo", REPLY_MS);
      const first = JSON.stringify(openai.requests[0]?.body);
      expect(first).toContain(`data:image/jpeg;base64,${JPEG.toString("base64")}`);
      expect(first).toContain("what is this?");

      send(2, { voice: { ...telegram.files.host(OGG, "oga"), duration: 2, mime_type: "audio/ogg" } });
      await eventually(() => telegram.chat.botMessages.length >= 2, "the reply to the voice note", REPLY_MS);
      expect(whisper.requests).toMatchObject([{ status: 200, model: "whisper-1", fileName: "audio.ogg" }]);
      expect(JSON.stringify(openai.requests.at(-1)?.body)).toContain(
        "its transcript: remind me about the picture",
      );
      expect(telegram.chat.botMessages[1]?.text).toBe('🎙 "remind me about the picture"\n\nNoted.');
    },
  },
];
