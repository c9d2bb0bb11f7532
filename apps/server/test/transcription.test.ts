// The server's transcriber (media.transcribe): per entry, the webui exposure's block for runs without
// a gateway origin, a transcript kept beside the blob and read back instead of a second call, and a
// missing key named with the entry file at start.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { loadProject, type Project } from "@agentsvc/config-schema";
import { FakeTranscriptions, OPENAI_TEST_KEY } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { transcriberOf } from "../src/transcription.js";

const dirs: string[] = [];
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function project(files: Record<string, string>): Promise<Project> {
  const dir = mkdtempSync(join(tmpdir(), "agentsvc-transcribe-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const loaded = await loadProject(dir);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.project;
}

// What defineAgent returns, written out (a temporary project has no node_modules to import it from).
const AGENT = {
  "agents/root.mjs": 'export default { kind: "agent", name: "root", model: { provider: "demo" } };\n',
};
const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(300, 2)]);
const signal = new AbortController().signal;

describe("transcriberOf", () => {
  it("transcribes for an entry with media.transcribe and for the chat page, once per audio, and not for other entries", async () => {
    const whisper = await FakeTranscriptions.start({ text: "see you at six" });
    closers.push(() => whisper.close());
    const model = `{ model: openai/whisper-1, baseURL: "${whisper.baseURL}" }`;
    const p = await project({
      ...AGENT,
      "gateways/telegram.yaml": `type: telegram\nbotTokenEnvVar: T\nmedia: { transcribe: true, transcriptionModel: ${model} }\n`,
      "gateways/slack.yaml": "type: slack\nbotTokenEnvVar: S\nappTokenEnvVar: A\nmedia: {}\n",
      "gateways/web.yaml": `exposes: webui\npath: /chat\nmedia: { transcribe: true, transcriptionModel: ${model} }\n`,
    });
    const db = ChatDb.open({ appRoot: dirs[0] as string, path: "data/chat.db" });
    closers.push(() => db.close());
    const stored = await db.blobs.put(OGG, "audio/ogg");
    const file = { blob: stored.sha256, kind: "audio" as const, contentType: "audio/ogg", size: OGG.length };
    const transcribe = transcriberOf(p, db.blobs, { OPENAI_API_KEY: OPENAI_TEST_KEY });
    if (!transcribe) throw new Error("expected a transcriber");
    expect(await transcribe(file, { gateway: "telegram", thread: "1" }, signal)).toBe("see you at six");
    expect(await db.blobs.transcript(stored.sha256)).toEqual({
      model: "openai/whisper-1",
      text: "see you at six",
    });
    // The same audio again (another chat, the page): read back, no second call.
    expect(await transcribe(file, undefined, signal)).toBe("see you at six");
    expect(whisper.requests).toHaveLength(1);
    expect(await transcribe(file, { gateway: "slack", thread: "C1" }, signal)).toBeUndefined();
  });

  it("is absent when no entry transcribes, and names the entry file when the key is missing", async () => {
    const none = await project({
      ...AGENT,
      "gateways/telegram.yaml": "type: telegram\nbotTokenEnvVar: T\nmedia: {}\n",
    });
    const db = ChatDb.open({ appRoot: dirs[0] as string, path: "data/chat.db" });
    closers.push(() => db.close());
    expect(transcriberOf(none, db.blobs, {})).toBeUndefined();
    const keyless = await project({
      ...AGENT,
      "gateways/telegram.yaml": "type: telegram\nbotTokenEnvVar: T\nmedia: { transcribe: true }\n",
    });
    expect(() => transcriberOf(keyless, db.blobs, {})).toThrow(
      /gateways\/telegram\.yaml: .*OPENAI_API_KEY is not set/,
    );
  });
});
