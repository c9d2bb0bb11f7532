// Two chat pages, the second with a database of its own (issue #46): each page's uploads are its
// own (another page's file id opens nothing, sends nothing, and its history shows nothing of them),
// and the second page's files still reach the runs, which read files and transcribe from the
// store the agent's memory lives in. Real HTTP on 127.0.0.1, SQLite files in a temp project,
// FakeTranscriptions as the OpenAI transcription endpoint; the signed file route serves an upload
// only under the service's own signature.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { FakeTranscriptions, OPENAI_TEST_KEY } from "@agentsvc/testkit";
import { fileUrls } from "@agentsvc/webhook-kit";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";

const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(300, 2)]);
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFElEQVR4nGP4z8DAwAAi/v//zwAAHfAE/EgTX4EAAAAASUVORK5CYII=",
  "base64",
);

let dir: string;
let whisper: FakeTranscriptions;
let server: RunningServer;
// The signed file URLs a reply's files go out by (Twilio MediaUrl): served only with a valid signature.
const SECRET = "entry-files-test-secret";
const BASE = "http://127.0.0.1:9";

beforeAll(async () => {
  whisper = await FakeTranscriptions.start({ text: "see you at six" });
  dir = mkdtempSync(join(tmpdir(), "agentsvc-entry-files-"));
  const media = `media: { types: [image, audio], transcribe: true, transcriptionModel: { model: openai/whisper-1, baseURL: "${whisper.baseURL}" } }`;
  const files: Record<string, string> = {
    "agents/root.mjs": 'export default { kind: "agent", name: "root", model: { provider: "demo" } };\n',
    "gateways/a.yaml": `exposes: webui\npath: /a\n${media}\n`,
    "gateways/b.yaml": `exposes: webui\npath: /b\ndatabase: { path: ./data/b.db }\n${media}\n`,
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const loaded = await loadProject(dir);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  server = await startServer(
    { ...loaded.project, config: { ...loaded.project.config, publicBaseUrl: BASE } },
    {
      port: 0,
      logger: pino({ level: "silent" }),
      env: { ...process.env, OPENAI_API_KEY: OPENAI_TEST_KEY, AGENTSVC_FILE_URL_SECRET: SECRET },
      buildDir: join(dir, "build"),
      interactive: false,
    },
  );
});
afterAll(async () => {
  await server?.shutdown();
  await whisper?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function upload(page: string, name: string, bytes: Buffer): Promise<string> {
  const res = await fetch(`${server.url}${page}/api/files`, {
    method: "POST",
    body: new Uint8Array(bytes),
    headers: { "x-file-name": encodeURIComponent(name) },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { file: { id: string } }).file.id;
}

function invoke(page: string, id: string, name: string) {
  return fetch(`${server.url}${page}/api/invoke`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: "", conversationId: "c1", attachments: [{ id, name }] }),
  });
}

async function history(page: string): Promise<{ attachments?: { blob: string; transcript?: string }[] }[]> {
  const res = await fetch(`${server.url}${page}/api/history?conversationId=c1`);
  return ((await res.json()) as { messages: { attachments?: { blob: string; transcript?: string }[] }[] })
    .messages;
}

describe("two chat pages, one with its own database", () => {
  it("a file sent on the page with its own database is transcribed for the model and replayed with its transcript", async () => {
    const id = await upload("/b", "memo.ogg", OGG);
    const turn = await invoke("/b", id, "memo.ogg");
    expect(turn.status).toBe(200);
    expect(((await turn.json()) as { output: string }).output).toContain("see you at six");
    const [sent] = await history("/b");
    expect(sent?.attachments?.[0]).toMatchObject({ blob: id, transcript: "see you at six" });
    expect((await fetch(`${server.url}/b/api/files/${id}/memo.ogg`)).status).toBe(200);
  });

  it("a page's uploads are not servable, sendable or in the history of the other page, nor by a file URL the service did not sign", async () => {
    const onB = await upload("/b", "b.png", PNG);
    expect((await fetch(`${server.url}/a/api/files/${onB}/b.png`)).status).toBe(404);
    const sent = await invoke("/a", onB, "b.png");
    expect(sent.status).toBe(400);
    expect(await sent.text()).toContain("not a file you uploaded");
    expect(await history("/a")).toEqual([]);

    const onA = await upload("/a", "a.ogg", Buffer.concat([OGG, Buffer.from("a")]));
    expect((await fetch(`${server.url}/b/api/files/${onA}/a.ogg`)).status).toBe(404);
    expect((await invoke("/b", onA, "a.ogg")).status).toBe(400);
    expect((await history("/b")).flatMap((m) => m.attachments ?? []).map((a) => a.blob)).not.toContain(onA);

    // Nor by the service's signed file URL without a signature the service made (what a visitor can try).
    const signed = new URL(fileUrls({ baseUrl: BASE, secret: SECRET }).sign({ blob: onB, name: "b.png" }));
    const at = (query: string) => fetch(`${server.url}${signed.pathname}${query}`);
    expect((await at(signed.search)).status).toBe(200);
    expect((await at("")).status).toBe(404);
    const forged = new URL(fileUrls({ baseUrl: BASE, secret: "a guess" }).sign({ blob: onB, name: "b.png" }));
    expect((await at(forged.search)).status).toBe(404);
  });
});
