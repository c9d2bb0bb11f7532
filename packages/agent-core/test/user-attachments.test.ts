// A user message's files (issue #46): stored with the message as blob refs, and named to a model
// that gets no file parts.
import { describe, expect, it } from "vitest";
import { type AttachmentRef, defineAgent, RunManager, WindowMemory } from "../src/index.js";
import { toPrompt } from "../src/prompt.js";

const photo: AttachmentRef = {
  blob: "a".repeat(64),
  kind: "image",
  contentType: "image/png",
  size: 2048,
  name: "cat.png",
};

describe("attachments of a user message", () => {
  it("are stored on the turn's user message, so a history read carries them", async () => {
    const memory = new WindowMemory();
    const runs = new RunManager({ agent: defineAgent({ name: "a", model: { provider: "demo" } }), memory });
    const handle = runs.start({ input: "look", attachments: [photo], userId: "u", conversationId: "c" });
    expect((await handle.done).status).toBe("completed");
    const [first] = await memory.load({ userId: "u", conversationId: "c" });
    expect(first).toEqual({ role: "user", content: "look", attachments: [photo] });
  });

  it("reach a model without file parts as a note naming each stored file; refused ones are left out", () => {
    const prompt = toPrompt(undefined, [
      {
        role: "user",
        content: "look",
        attachments: [photo, { refused: "size", kind: "video", name: "big.mp4" }],
      },
    ]);
    const text = JSON.stringify(prompt);
    expect(text).toContain('look\\n\\n[The user attached an image \\"cat.png\\" (image/png, 2048 bytes)');
    expect(text).not.toContain("big.mp4");
  });
});
