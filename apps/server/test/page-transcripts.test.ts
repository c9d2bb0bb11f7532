/// <reference lib="dom" />
// Transcripts on the chat page (issue #46): an audio file sent from the page of an entry with
// media.transcribe is transcribed by the server like a gateway's voice note, and the page shows
// the transcript under the file's chip once the reply ends and again when the history is replayed,
// always as text. Chromium against the real server (the hello example with a media block on its
// webui entry, the demo model, FakeTranscriptions as the OpenAI transcription endpoint).
import { FakeTranscriptions, OPENAI_TEST_KEY } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usePageRig } from "./page-rig.js";

// An Ogg page header: typed audio/ogg by its bytes.
const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(300, 2)]);
// What the model heard, written as markup: it must stay text.
const HEARD = "<img src=x onerror=alert(1)> see you at six";

let whisper: FakeTranscriptions;
beforeAll(async () => {
  whisper = await FakeTranscriptions.start({ text: HEARD });
});
afterAll(async () => {
  await whisper?.close();
});

const rig = usePageRig(() => ({
  media: {
    maxBytes: 200 * 1024,
    types: ["audio"],
    transcribe: true,
    transcriptionModel: { model: "openai/whisper-1", baseURL: whisper.baseURL },
    showTranscript: true,
    unsupported: "reply",
  },
  env: { ...process.env, OPENAI_API_KEY: OPENAI_TEST_KEY },
}));

describe("chat page transcripts", () => {
  it("shows a sent audio file's transcript under its chip as text, after the reply and on replay", async () => {
    const page = await rig.open();
    await page.locator("#file-input").setInputFiles({ name: "memo.ogg", mimeType: "audio/ogg", buffer: OGG });
    await expect.poll(() => page.locator("#file-tray .file-chip.pending").count()).toBe(0);
    await page.locator("#send-btn").click();
    await expect
      .poll(() => page.locator("#status").textContent(), { timeout: 15_000 })
      .toBe("Reply finished.");
    const shown = page.locator(".msg.user .file-transcript").last();
    await expect.poll(() => shown.textContent()).toBe(HEARD);
    expect(await page.locator(".msg.user .audio .file-name").last().textContent()).toBe("memo.ogg");
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    // The model read the transcript (the demo model echoes what it read).
    await expect
      .poll(() => page.locator(".msg.assistant .content").last().textContent())
      .toContain("see you at six");

    await page.reload();
    await expect.poll(() => page.locator(".msg.user .file-transcript").last().textContent()).toBe(HEARD);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
  }, 60_000);
});
