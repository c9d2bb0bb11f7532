/// <reference lib="dom" />
// Transcripts on the chat page (issue #46): an audio file sent from the page of an entry with
// media.transcribe is transcribed by the server like a gateway's voice note, and the page shows
// the transcript under the file's chip once the reply ends and again when the history is replayed,
// always as text. Chromium against the real server (the hello example with a media block on its
// webui entry, the demo model, FakeTranscriptions as the OpenAI transcription endpoint).
import type { Project } from "@agentsvc/config-schema";
import { FakeTranscriptions, OPENAI_TEST_KEY } from "@agentsvc/testkit";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage, type Watched } from "../../../packages/webui-page/test/browser/harness.js";
import { type RunningServer, startServer } from "../src/index.js";
import { helloProject } from "./hello-server.js";

// An Ogg page header: typed audio/ogg by its bytes.
const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(300, 2)]);
// What the model heard, written as markup: it must stay text.
const HEARD = "<img src=x onerror=alert(1)> see you at six";

let server: RunningServer;
let whisper: FakeTranscriptions;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let w: Watched | undefined;

async function transcribingProject(): Promise<Project> {
  const project = await helloProject();
  return {
    ...project,
    exposures: project.exposures.map((e) =>
      e.exposes === "webui"
        ? {
            ...e,
            media: {
              maxBytes: 200 * 1024,
              types: ["audio"],
              transcribe: true,
              transcriptionModel: { model: "openai/whisper-1", baseURL: whisper.baseURL },
              showTranscript: true,
              unsupported: "reply",
            },
          }
        : e,
    ),
  };
}

beforeAll(async () => {
  whisper = await FakeTranscriptions.start({ text: HEARD });
  server = await startServer(await transcribingProject(), {
    port: 0,
    logger: pino({ level: "silent" }),
    env: { ...process.env, OPENAI_API_KEY: OPENAI_TEST_KEY },
  });
  browser = await launchBrowser();
});
afterEach(async () => {
  if (w) {
    expect(w.cspErrors).toEqual([]);
    expect(w.pageErrors).toEqual([]);
    expect(w.dialogs).toEqual([]);
    await w.context.close();
    w = undefined;
  }
});
afterAll(async () => {
  await browser?.close();
  await server?.shutdown();
  await whisper?.close();
});

describe("chat page transcripts", () => {
  it("shows a sent audio file's transcript under its chip as text, after the reply and on replay", async () => {
    w = await openPage(browser, `${server.url}/chat/index.html`);
    const page = w.page;
    await expect.poll(() => page.locator("#model").textContent()).not.toBe("");
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
