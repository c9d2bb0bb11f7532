// A user message's stored files through agent-core's run loop and the real AI SDK providers to the
// provider fakes: file parts where the model takes them (agent-core's capability table), the note
// naming the file where it does not, bytes read from the blob reader once per turn.
import { createHash } from "node:crypto";
import { dirname } from "node:path";
import { createRequire } from "node:module";
import {
  type AgentModel,
  type AttachmentRef,
  defineAgent,
  defineTool,
  type Message,
  RunManager,
  resolveModel,
  WindowMemory,
} from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import {
  ANTHROPIC_TEST_KEY,
  FakeAnthropic,
  FakeGemini,
  FakeOpenAI,
  GEMINI_TEST_KEY,
  OPENAI_TEST_KEY,
} from "../src/index.js";
import { startedFakes } from "./started-fakes.js";

// Provider packages load from a project's node_modules; agent-core's has Google's.
const agentCoreRoot = dirname(dirname(createRequire(import.meta.url).resolve("@agentsvc/agent-core")));

const started = startedFakes();

class Blobs {
  readonly bytes = new Map<string, Uint8Array>();
  reads = 0;
  put(data: Buffer, contentType: string, name: string, kind: "image" | "document" | "audio" = "image") {
    const blob = createHash("sha256").update(data).digest("hex");
    this.bytes.set(blob, data);
    return { blob, kind, contentType, size: data.length, name } satisfies AttachmentRef;
  }
  read = async (sha256: string) => {
    this.reads++;
    return this.bytes.get(sha256);
  };
}

const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.alloc(64, 7)]);
const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
const b64 = (b: Buffer) => b.toString("base64");

const clock = defineTool({
  name: "clock",
  description: "Tells the time",
  input: { type: "json-schema", schema: { type: "object", properties: {} } },
  execute: () => "noon",
});

function runs(model: AgentModel, blobs: Blobs, env: Record<string, string>, memory = new WindowMemory()) {
  const agent = defineAgent({ name: "files", model, tools: [clock] });
  const resolved = resolveModel(model, { env, root: agentCoreRoot });
  return new RunManager({ agent, model: resolved, blobs, memory, env });
}

async function turn(manager: RunManager, input: string, attachments?: AttachmentRef[]) {
  const result = await manager.start({ input, attachments, userId: "u", conversationId: "c" }).done;
  expect(result.error).toBeUndefined();
  return result;
}

const lastUser = (body: unknown, key = "messages") =>
  ((body as Record<string, { role: string }[]>)[key] ?? []).filter((m) => m.role === "user").at(-1);

describe("stored files reach the model", () => {
  it("OpenAI gpt-4o: image_url with a data URL and a PDF file part before the text; each blob read once per turn, whatever its model calls", async () => {
    const f = await started(FakeOpenAI.start());
    f.enqueue({ toolCalls: [{ name: "clock", arguments: ["{}"] }] }, { text: ["a cat"] });
    const blobs = new Blobs();
    const photo = blobs.put(PNG, "image/png", "cat.png");
    const report = blobs.put(PDF, "application/pdf", "r.pdf", "document");
    const manager = runs({ model: "openai/gpt-4o", baseURL: f.baseURL }, blobs, {
      OPENAI_API_KEY: OPENAI_TEST_KEY,
    });
    await turn(manager, "what is this?", [photo, report]);
    // Two model calls (the tool round and the answer), both with the files, two reads in all.
    expect(f.count).toBe(2);
    expect(JSON.stringify(f.requests[1]?.body)).toContain(b64(PNG));
    expect(blobs.reads).toBe(2);
    expect(lastUser(f.requests[0]?.body)).toEqual({
      role: "user",
      content: [
        { type: "image_url", image_url: { url: `data:image/png;base64,${b64(PNG)}` } },
        { type: "file", file: { filename: "r.pdf", file_data: `data:application/pdf;base64,${b64(PDF)}` } },
        { type: "text", text: "what is this?" },
      ],
    });
    // A later turn carries the earlier picture again, from the store (memory holds the ref only).
    await turn(manager, "and now?");
    expect(JSON.stringify(f.requests[2]?.body)).toContain(b64(PNG));
    expect(blobs.reads).toBe(4);
  });

  it("OpenAI gpt-3.5-turbo (no vision): the note naming the file, no image part, and the fake takes it", async () => {
    const f = await started(FakeOpenAI.start());
    const blobs = new Blobs();
    const manager = runs({ model: "openai/gpt-3.5-turbo", baseURL: f.baseURL }, blobs, {
      OPENAI_API_KEY: OPENAI_TEST_KEY,
    });
    await turn(manager, "look", [blobs.put(PNG, "image/png", "cat.png")]);
    const sent = JSON.stringify(f.requests[0]?.body);
    expect(sent).not.toContain("image_url");
    expect(sent).toContain('[The user attached an image \\"cat.png\\" (image/png');
    expect(blobs.reads).toBe(0);
  });

  it("settings.fileInputs overrides the table: [] sends gpt-4o the note, [image] sends an unknown model the picture", async () => {
    // A vLLM server serving a vision model: it takes the parts OpenAI documents, on any model id.
    const f = await started(FakeOpenAI.start({ apiKey: false, flavor: "vllm" }));
    const blobs = new Blobs();
    const photo = blobs.put(PNG, "image/png", "cat.png");
    const none = runs({ model: "openai/gpt-4o", baseURL: f.baseURL, settings: { fileInputs: [] } }, blobs, {
      OPENAI_API_KEY: "k",
    });
    await turn(none, "look", [photo]);
    expect(JSON.stringify(f.requests[0]?.body)).not.toContain("image_url");
    const local = runs(
      { model: "openai-compatible/llava", baseURL: f.baseURL, settings: { fileInputs: ["image"] } },
      blobs,
      {},
    );
    await turn(local, "look", [photo]);
    expect(JSON.stringify(f.requests[1]?.body)).toContain(`data:image/png;base64,${b64(PNG)}`);
  });

  it("Anthropic: base64 image and document blocks; a 6 MB image (over Anthropic's 5 MB) goes as the note instead of a refused request", async () => {
    const f = await started(FakeAnthropic.start());
    const blobs = new Blobs();
    const model = { model: "anthropic/claude-sonnet-4-5", baseURL: f.baseURL } as const;
    const manager = runs(model, blobs, { ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY });
    await turn(manager, "look", [
      blobs.put(PNG, "image/png", "cat.png"),
      blobs.put(PDF, "application/pdf", "r.pdf", "document"),
    ]);
    const content = (lastUser(f.requests[0]?.body) as unknown as { content: Record<string, unknown>[] })
      .content;
    expect(content.slice(0, 2)).toMatchObject([
      { type: "image", source: { type: "base64", media_type: "image/png", data: b64(PNG) } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: b64(PDF) } },
    ]);
    const big = Buffer.concat([PNG, Buffer.alloc(6 * 1024 * 1024)]);
    const other = runs(model, blobs, { ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY });
    await turn(other, "and this", [blobs.put(big, "image/png", "big.png")]);
    const sent = JSON.stringify(lastUser(f.requests[1]?.body));
    expect(sent).not.toContain('"type":"image"');
    expect(sent).toContain("big.png");
  });

  it("Gemini: inlineData parts for an image, a PDF and a voice note (audio without a transcript)", async () => {
    const f = await started(FakeGemini.start());
    const blobs = new Blobs();
    const ogg = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(32, 3)]);
    const manager = runs({ model: "google/gemini-2.5-flash", baseURL: f.baseURL }, blobs, {
      GOOGLE_GENERATIVE_AI_API_KEY: GEMINI_TEST_KEY,
    });
    await turn(manager, "hear this", [
      blobs.put(PNG, "image/png", "cat.png"),
      blobs.put(PDF, "application/pdf", "r.pdf", "document"),
      blobs.put(ogg, "audio/ogg", "voice.ogg", "audio"),
    ]);
    const body = f.requests[0]?.body as { contents: { parts: Record<string, unknown>[] }[] };
    expect(body.contents.at(-1)?.parts).toEqual([
      { inlineData: { mimeType: "image/png", data: b64(PNG) } },
      { inlineData: { mimeType: "application/pdf", data: b64(PDF) } },
      { inlineData: { mimeType: "audio/ogg", data: b64(ogg) } },
      { text: "hear this" },
    ]);
  });

  it("keeps refs, never bytes, in memory; a pruned blob reaches the model as the note", async () => {
    const f = await started(FakeOpenAI.start());
    const blobs = new Blobs();
    const memory = new WindowMemory();
    const manager = runs(
      { model: "openai/gpt-4o", baseURL: f.baseURL },
      blobs,
      { OPENAI_API_KEY: OPENAI_TEST_KEY },
      memory,
    );
    const photo = blobs.put(PNG, "image/png", "cat.png");
    await turn(manager, "look", [photo]);
    const stored = (await memory.load({ userId: "u", conversationId: "c" })) as Message[];
    expect(stored[0]).toEqual({ role: "user", content: "look", attachments: [photo] });
    expect(JSON.stringify(stored)).not.toContain(b64(PNG));
    blobs.bytes.clear();
    await turn(manager, "again");
    const sent = JSON.stringify(f.requests[1]?.body);
    expect(sent).not.toContain("image_url");
    expect(sent).toContain("cat.png");
  });
});

describe("a file the provider refuses", () => {
  it("is sent once more as the note in the same turn, and as the note to that model from then on", async () => {
    const f = await started(FakeOpenAI.start());
    const blobs = new Blobs();
    // The override claims a picture for a model OpenAI refuses it on (400 "image_url is only supported by certain models").
    const manager = runs(
      { model: "openai/gpt-3.5-turbo", baseURL: f.baseURL, settings: { fileInputs: ["image"] } },
      blobs,
      { OPENAI_API_KEY: OPENAI_TEST_KEY },
    );
    const result = await turn(manager, "look", [blobs.put(PNG, "image/png", "cat.png")]);
    expect(result.status).toBe("completed");
    expect(f.requests.map((r) => r.status)).toEqual([400, 200]);
    expect(JSON.stringify(f.requests[1]?.body)).toContain('[The user attached an image \\"cat.png\\"');
    await turn(manager, "and now?");
    expect(f.requests.map((r) => r.status)).toEqual([400, 200, 200]);
    expect(JSON.stringify(f.requests[2]?.body)).not.toContain("image_url");
  });
});
