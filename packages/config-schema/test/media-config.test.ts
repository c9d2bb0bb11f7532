import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject, mediaPolicyOf } from "../src/index.js";
import { expectError, loadErrors, loadOk, writeProject } from "./helpers.js";

describe("media blocks on gateway entries", () => {
  it("fills a bare media block with 20 MiB, all four kinds, no transcription and reply", async () => {
    const project = await loadOk({ "gateways/tg.yaml": "type: telegram\nbotTokenEnvVar: TG\nmedia: {}\n" });
    const entry = project.pushGateways[0]! as unknown as { media: unknown };
    expect(entry.media).toEqual({
      maxBytes: 20 * 1024 * 1024,
      types: ["image", "audio", "video", "document"],
      transcribe: false,
      transcriptionModel: "openai/whisper-1",
      showTranscript: true,
      unsupported: "reply",
    });
  });

  it("reads the limits, kinds (deduplicated), transcription and ignore", async () => {
    const project = await loadOk({
      "gateways/wa.yaml": [
        "type: whatsapp",
        "accessTokenEnvVar: T",
        "appSecretEnvVar: S",
        "verifyTokenEnvVar: V",
        "phoneNumberIdEnvVar: P",
        "media: { maxBytes: 1048576, types: [image, audio, image], transcribe: true, unsupported: ignore,",
        "  transcriptionModel: { model: groq/whisper-large-v3, apiKeyEnvVar: TEAM_GROQ }, showTranscript: false }",
        "",
      ].join("\n"),
    });
    const entry = project.pushGateways[0]! as unknown as { media: unknown };
    expect(entry.media).toEqual({
      maxBytes: 1048576,
      types: ["image", "audio"],
      transcribe: true,
      transcriptionModel: { model: "groq/whisper-large-v3", apiKeyEnvVar: "TEAM_GROQ" },
      showTranscript: false,
      unsupported: "ignore",
    });
  });

  it("takes a media block on the webui exposure", async () => {
    const project = await loadOk({
      "gateways/chat.yaml": "exposes: webui\npath: /chat\nmedia: { types: [image] }\n",
    });
    const webui = project.exposures.find((e) => e.exposes === "webui")!;
    expect(webui.media?.types).toEqual(["image"]);
  });

  it("names the allowed kinds and the unsupported choices when they are wrong", async () => {
    const errors = await loadErrors({
      "gateways/tg.yaml":
        "type: telegram\nbotTokenEnvVar: TG\nmedia: { types: [sticker], unsupported: drop, maxBytes: 0 }\n",
    });
    expectError(errors, "gateways/tg.yaml", "media.types[0]", /image, audio, video, document/);
    expectError(errors, "gateways/tg.yaml", "media.unsupported", /reply or ignore/);
    expectError(errors, "gateways/tg.yaml", "media.maxBytes", /at least 1/);
  });

  it("refuses a transcription model of a provider without transcription", async () => {
    const errors = await loadErrors({
      "gateways/tg.yaml":
        "type: telegram\nbotTokenEnvVar: TG\nmedia: { transcribe: true, transcriptionModel: anthropic/claude-sonnet-4-5 }\n",
    });
    expectError(errors, "gateways/tg.yaml", "media.transcriptionModel", /openai\/<model>", "groq\/<model>"/);
  });
});

describe("mediaPolicyOf without a media block", () => {
  const WA =
    "type: whatsapp\naccessTokenEnvVar: A\nphoneNumberIdEnvVar: P\nappSecretEnvVar: S\nverifyTokenEnvVar: V\n";

  it("takes nothing in and answers an attachment once, except where the adapter says ignore (WhatsApp: caption-only)", async () => {
    const project = await loadOk({
      "gateways/tg.yaml": "type: telegram\nbotTokenEnvVar: TG\n",
      "gateways/wa.yaml": WA,
    });
    const [tg, wa] = ["telegram", "whatsapp"].map((t) => project.pushGateways.find((g) => g.type === t)!);
    expect(mediaPolicyOf(tg!)).toMatchObject({ types: [], unsupported: "reply" });
    // The default is the adapter's (adapter.unsupportedMedia), not a type list in config-schema.
    expect(wa).toMatchObject({ unsupportedMedia: "ignore" });
    expect(mediaPolicyOf(wa!)).toMatchObject({ types: [], unsupported: "ignore" });
  });

  it("takes the third-party adapter's default like a built-in's", async () => {
    const dir = writeProject({ "gateways/chat.yaml": "type: agentsvc-gateway-quiet\n" });
    const pkg = join(dir, "node_modules", "agentsvc-gateway-quiet");
    mkdirSync(pkg, { recursive: true });
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({ name: "agentsvc-gateway-quiet", type: "module", exports: "./index.js" }),
    );
    writeFileSync(
      join(pkg, "index.js"),
      'export const adapter = { type: "quiet", kind: "webhook", account: "bot", secrets: [], unsupportedMedia: "ignore" };\nexport const entrySchema = {};\nexport function createGateway() {}\n',
    );
    const r = await loadProject(dir);
    expect(r.ok && mediaPolicyOf(r.project.pushGateways[0]!)).toMatchObject({ unsupported: "ignore" });
    // With a block, the block decides.
    expect(
      mediaPolicyOf({
        unsupportedMedia: "ignore",
        media: {
          maxBytes: 1,
          types: ["image"],
          transcribe: false,
          transcriptionModel: "x",
          showTranscript: true,
          unsupported: "reply",
        },
      }),
    ).toMatchObject({ unsupported: "reply" });
  });
});
