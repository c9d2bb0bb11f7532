// Rows for the `media` block through the installed bin (issue #46): files a Telegram user sends
// reach an OpenAI model as file parts, and voice notes as transcripts quoted above the reply; a
// picture a Teams user pastes (webhook adapter) and one a Signal user sends (connection adapter)
// reach the model, and a tool's files go back out natively on both.
import {
  eventually,
  FakeOpenAI,
  FakeTeams,
  FakeTranscriptions,
  OPENAI_TEST_KEY,
  startSignalDaemon,
  TelegramFake,
} from "@agentsvc/testkit";
import { expect } from "vitest";
import type { BlockRow } from "./block-rows.js";

const REPLY_MS = 20_000;
const JPEG = Buffer.concat([Buffer.from("ffd8ffe000104a464946", "hex"), Buffer.alloc(3000, 9)]);
const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(3000, 4)]);
// A PNG signature and its IHDR chunk head: typed by the bytes (file-type).
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(3000, 6)]);
const CHART = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(1500, 2)]);
const REPORT = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(5000, 66)]);

/**
 * An agent on the fake OpenAI whose `make_chart` tool returns files (a picture, and a PDF when
 * `withReport`): the model calls the tool first, then answers once the tool's result is in.
 */
function chartAgent(baseURL: string, withReport: boolean): string {
  const files = [
    `{ name: "chart.png", contentType: "image/png", data: "${CHART.toString("base64")}", caption: "Your chart" }`,
    ...(withReport
      ? [`{ name: "report.pdf", contentType: "application/pdf", data: "${REPORT.toString("base64")}" }`]
      : []),
  ];
  return [
    'import { defineAgent, defineTool } from "@agentsvc/agent-core";',
    'import * as v from "valibot";',
    "const makeChart = defineTool({",
    '  name: "make_chart",',
    '  description: "Draws the chart of what the user sent.",',
    "  input: v.object({}),",
    `  execute: () => ({ drawn: true, files: [${files.join(", ")}] }),`,
    "});",
    `export default defineAgent({ name: "assistant", model: { model: "openai/gpt-4o", baseURL: "${baseURL}" }, tools: [makeChart] });`,
    "",
  ].join("\n");
}

/** The fake OpenAI: a tool call to make_chart, then a text answer once a tool result is in the request. */
function chartModel(): Promise<FakeOpenAI> {
  return FakeOpenAI.start({
    fallback: (request) =>
      /function_call_output|"role":"tool"/.test(JSON.stringify(request.body))
        ? { text: ["Here it is."] }
        : { toolCalls: [{ name: "make_chart", arguments: ["{}"] }] },
  });
}

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
  {
    block: "gateways/teams.yaml media (types) with a tool that returns files",
    behaviour:
      "a pasted picture is fetched with the bot's token and reaches gpt-4o as an image part; the tool's chart goes back inline and its PDF through the file consent card and the OneDrive upload",
    async run(ctx) {
      const env = { TEAMS_APP_ID: "00000000-aaaa-bbbb-cccc-000000000046", TEAMS_APP_PASSWORD: "secret-46" };
      const teams = await FakeTeams.start({ appId: env.TEAMS_APP_ID, appPassword: env.TEAMS_APP_PASSWORD });
      const openai = await chartModel();
      ctx.cleanup(() => teams.close());
      ctx.cleanup(() => openai.close());
      ctx.write({
        "agents/assistant.ts": chartAgent(openai.baseURL, true),
        "gateways/teams.yaml": [
          "type: teams",
          "appIdEnvVar: TEAMS_APP_ID",
          "appPasswordEnvVar: TEAMS_APP_PASSWORD",
          `openIdMetadataUrl: ${teams.openIdMetadataUrl}`,
          `loginBaseUrl: ${teams.loginBaseUrl}`,
          `serviceUrl: ${teams.serviceUrl}`,
          "media:",
          "  types: [image]",
          "",
        ].join("\n"),
      });
      const server = await ctx.start({ env: { ...env, OPENAI_API_KEY: OPENAI_TEST_KEY } });
      teams.webhookUrl = `${server.url}/webhooks/teams`;
      const alice = { id: "29:alice", name: "Alice", aadObjectId: "aad-alice" };
      const activity = teams.messageActivity({
        conversationId: "a:1media",
        from: alice,
        text: "chart this",
        attachments: [teams.inlinePicture(PNG)],
      });
      expect((await teams.deliver(activity)).status).toBe(200);
      expect(teams.fileRequests).toMatchObject([{ status: 200 }]);
      expect(teams.fileRequests[0]?.authorization).toMatch(/^Bearer /);
      const consentOf = () =>
        teams.sent.find((s) =>
          JSON.stringify(s.activity.attachments ?? []).includes(
            "application/vnd.microsoft.teams.card.file.consent",
          ),
        );
      await eventually(() => consentOf() !== undefined, "the consent card for the PDF", REPLY_MS);
      expect(JSON.stringify(openai.requests[0]?.body)).toContain(
        `data:image/png;base64,${PNG.toString("base64")}`,
      );
      expect(teams.sent.map((s) => s.text)).toContain("Here it is.");
      const inline = teams.sent.find((s) =>
        JSON.stringify(s.activity.attachments ?? []).includes("data:image/png"),
      );
      expect(inline?.activity.attachments).toEqual([
        {
          contentType: "image/png",
          contentUrl: `data:image/png;base64,${CHART.toString("base64")}`,
          name: "chart.png",
        },
      ]);
      expect(inline?.text).toBe("Your chart");
      expect((await teams.answerConsent(String(consentOf()?.id), alice, "accept")).status).toBe(200);
      const [upload] = [...teams.uploads.values()];
      expect(upload?.complete).toBe(true);
      expect(upload?.bytes.equals(REPORT)).toBe(true);
      expect(JSON.stringify(teams.sent.at(-1)?.activity.attachments)).toContain(
        "application/vnd.microsoft.teams.card.file.info",
      );
      // Each file piece went out once: one inline chart, one consent card.
      const withAttachment = (type: string) =>
        teams.sent.filter((s) => JSON.stringify(s.activity.attachments ?? []).includes(type));
      expect(withAttachment("data:image/png")).toHaveLength(1);
      expect(withAttachment("application/vnd.microsoft.teams.card.file.consent")).toHaveLength(1);
    },
  },
  {
    block: "gateways/signal.yaml media (types) with a tool that returns files",
    behaviour:
      "a picture a Signal user sends is taken from the daemon with getAttachment and reaches gpt-4o as an image part; the tool's chart goes back as a send with the file as a data URI",
    async run(ctx) {
      const account = "+15550000046";
      const daemon = await startSignalDaemon({ accounts: [account] });
      const openai = await chartModel();
      ctx.cleanup(() => daemon.close());
      ctx.cleanup(() => openai.close());
      ctx.write({
        "agents/assistant.ts": chartAgent(openai.baseURL, false),
        "gateways/signal.yaml": `type: signal\naccountEnvVar: SIGNAL_ACCOUNT\nhttpUrl: ${daemon.url}\nmedia:\n  types: [image]\n`,
      });
      await ctx.start({ env: { SIGNAL_ACCOUNT: account, OPENAI_API_KEY: OPENAI_TEST_KEY } });
      // signal-cli's default receive mode hands a message only to the streams open when it arrives.
      await eventually(() => daemon.openStreams > 0, "the event stream", REPLY_MS);
      const picture = daemon.attachment(PNG, "image/png", "photo.png");
      daemon.receive(account, { from: "+15550000047", text: "chart this", attachments: [picture] });
      await eventually(() => daemon.sent.some((s) => s.attachments), "the chart", REPLY_MS);
      expect(daemon.attachmentFetches.get(picture.id)).toBe(1);
      expect(JSON.stringify(openai.requests[0]?.body)).toContain(
        `data:image/png;base64,${PNG.toString("base64")}`,
      );
      const chart = daemon.sent.find((s) => s.attachments);
      expect(chart).toMatchObject({ recipient: "+15550000047", message: "Your chart" });
      expect(chart?.attachments?.[0]).toMatchObject({ contentType: "image/png", filename: "chart.png" });
      expect(chart?.attachments?.[0]?.bytes.equals(CHART)).toBe(true);
      expect(daemon.sent.map((s) => s.message)).toContain("Here it is.");
      // The file piece went out once.
      expect(daemon.sent.filter((s) => s.attachments)).toHaveLength(1);
    },
  },
];
