import { describe, expect, it } from "vitest";
import { runBin } from "./child.js";
import { BOT_AGENT, tempDir, writeFiles } from "./helpers.js";

// The `media` block of a gateway entry (issue #46) as the bundled bin reads it.
describe("agentsvc check reads an entry's media block", () => {
  it("names the allowed kinds and unsupported choices of a wrong block, and exits 1", () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/tg.yaml":
        "type: telegram\nbotTokenEnvVar: TG_TOKEN\nmedia: { types: [sticker], unsupported: drop }\n",
    });
    const r = runBin(["check", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /gateways\/tg\.yaml: media\.types\[0\]: must be one of image, audio, video, document/,
    );
    expect(r.stderr).toMatch(/gateways\/tg\.yaml: media\.unsupported: must be reply or ignore/);
  });

  it("warns about the transcription model's unset key when transcribe is on", () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/tg.yaml":
        "type: telegram\nbotTokenEnvVar: TG_TOKEN\nmedia: { transcribe: true, transcriptionModel: groq/whisper-large-v3 }\n",
    });
    const r = runBin(["check", dir], { TG_TOKEN: "t" });
    expect(r.stdout + r.stderr).toMatch(
      /gateways\/tg\.yaml: media\.transcriptionModel: environment variable GROQ_API_KEY is not set/,
    );
    const set = runBin(["check", dir], { TG_TOKEN: "t", GROQ_API_KEY: "k" });
    expect(set.stdout + set.stderr).not.toMatch(/GROQ_API_KEY/);
  });
});
