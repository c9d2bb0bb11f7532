// A tool result's files as the model reads them: name, type and size, never the bytes.
import { describe, expect, it } from "vitest";
import { toolFilesOf } from "../src/index.js";
import { toPrompt } from "../src/prompt.js";

const data = Buffer.alloc(3000, 7).toString("base64");

describe("files of tool results", () => {
  it("the prompt gives the model each file's name, type and size, and none of its bytes", () => {
    const prompt = toPrompt(undefined, [
      { role: "user", content: "draw" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "draw", arguments: {} }] },
      {
        role: "tool",
        toolCallId: "c1",
        toolName: "draw",
        result: { drawn: true, files: [{ name: "chart.png", contentType: "image/png", data }] },
      },
    ]);
    const text = JSON.stringify(prompt);
    expect(text).not.toContain(data.slice(0, 40));
    const tool = prompt.find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).toContain(
      '"files":[{"name":"chart.png","contentType":"image/png","size":3000,"sentToUser":true}]',
    );
  });

  it("toolFilesOf skips entries without a name, a type or bytes", () => {
    const files = toolFilesOf({
      files: [
        { name: "a.pdf", contentType: "application/pdf", data: new Uint8Array(2) },
        { name: "", contentType: "x/y", data: "AA==" },
        { name: "b", data: "AA==" },
        { name: "c", contentType: "text/plain", data: 5 },
      ],
    });
    expect(files.map((f) => f.name)).toEqual(["a.pdf"]);
    expect(toolFilesOf("text")).toEqual([]);
  });
});
