// A tool result's files become outbox pieces inside a real session over a real SQLite store:
// stored as a blob, one `file` piece each after the text, sent once through `sendFile` (a
// gateway without it gets a note naming the file), and the model never reads the bytes.
import { defineTool } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import type { OutboundFile } from "@agentsvc/adapter-kit";
import { useRig } from "./session-harness.js";

const openRig = useRig();
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(500, 3),
]);

const chart = defineTool({
  name: "draw_chart",
  description: "Draws a chart.",
  input: {
    type: "json-schema" as const,
    schema: { type: "object", properties: { note: { type: "string" } } },
  },
  execute: async () => ({
    drawn: true,
    files: [{ name: "chart.png", contentType: "image/png", data: PNG.toString("base64"), caption: "Sales" }],
  }),
});

const script = [
  { text: "", toolCalls: [{ name: "draw_chart", arguments: { note: "q3" } }] },
  { text: "Here it is." },
];

describe("files of tool results", () => {
  it("a gateway with sendFile gets the stored bytes once, after the text", async () => {
    const r = await openRig({ tools: [chart], script });
    const sent: { thread: string; file: OutboundFile; bytes: Buffer; key: string }[] = [];
    Object.assign(r.gateway, {
      sendFile: async (thread: string, file: OutboundFile, options: { idempotencyKey: string }) => {
        sent.push({ thread, file, bytes: await file.bytes(), key: options.idempotencyKey });
        return { messageId: `f${sent.length}` };
      },
    });
    await r.gateway.inject({ thread: "T", text: "draw it" });
    await r.session.idle(20_000);
    expect(r.gateway.textsTo("T")).toEqual(["Here it is."]);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.file).toMatchObject({
      name: "chart.png",
      contentType: "image/png",
      size: PNG.length,
      caption: "Sales",
    });
    expect(sent[0]?.bytes.equals(PNG)).toBe(true);
    expect(sent[0]?.key).toMatch(/:file0$/);
    expect((await r.db.blobs.read(sent[0]!.file.blob))?.equals(PNG)).toBe(true);
  });

  it("a gateway without sendFile is told the file's name and size", async () => {
    const r = await openRig({ tools: [chart], script });
    await r.gateway.inject({ thread: "U", text: "draw it" });
    await r.session.idle(20_000);
    expect(r.gateway.textsTo("U")).toEqual(["Here it is.", "📎 chart.png (508 B)"]);
  });
});
