// Attachments the entry does not take in, inside a real session over a real SQLite store: one
// short answer per message (also when it is delivered again), no turn for an attachment alone,
// the caption still answered, and `ignore` staying silent (WhatsApp's caption-only default).
import { describe, expect, it } from "vitest";
import type { AttachmentRef, Inbound } from "@agentsvc/adapter-kit";
import type { MediaOptions } from "../src/media-notes.js";
import { memoryOf, type Rig, useRig } from "./session-harness.js";

const openRig = useRig();

async function withMedia(media?: MediaOptions): Promise<Rig> {
  // A scripted model (plain answers): the demo model's own script would pick tools by the words of the notes.
  return openRig({
    entries: [{ name: "mock", type: "mock", ...(media ? { media } : {}) }],
    script: [{ text: "seen" }, { text: "heard" }],
  });
}

function message(r: Rig, from: string, text: string, attachments: AttachmentRef[], dedupKey: string) {
  const inbound: Inbound & { gateway: string } = {
    gateway: "mock",
    dedupKey,
    thread: from,
    text,
    author: { id: from },
    attachments,
  };
  return r.session.deliver(inbound);
}

const voice: AttachmentRef = { refused: "disabled", kind: "audio" };

describe("attachments the entry does not take in", () => {
  it("an uncaptioned voice note on a text-only entry gets one short answer and no turn, even delivered twice", async () => {
    const r = await withMedia();
    await message(r, "ann", "", [voice], "v1");
    await message(r, "ann", "", [voice], "v1");
    await r.session.idle(20_000);
    expect(r.gateway.textsTo("ann")).toEqual(["I can only read text here, so I did not get the attachment."]);
    expect(r.runs.starts).toHaveLength(0);
  });

  it("a captioned photo too large gets the answer naming the limit, and the caption its turn", async () => {
    const r = await withMedia({ unsupported: "reply", maxBytes: 5_000_000 });
    await message(
      r,
      "bob",
      "what is this?",
      [{ refused: "size", kind: "image", name: "big.jpg", size: 9e6 }],
      "p1",
    );
    await r.session.idle(20_000);
    expect(r.gateway.textsTo("bob")[0]).toBe('"big.jpg" is too large for me (limit 5.0 MB).');
    expect((await memoryOf(r, "mock", "bob")).filter((m) => m.role === "user")).toHaveLength(1);
    expect(r.runs.starts).toHaveLength(1);
  });

  it("ignore answers nothing and runs no turn for an attachment alone", async () => {
    const r = await withMedia({ unsupported: "ignore" });
    await message(r, "cy", "", [{ refused: "type", kind: "video" }], "x1");
    await r.session.idle(20_000);
    expect(r.gateway.textsTo("cy")).toEqual([]);
    expect(r.runs.starts).toHaveLength(0);
  });

  it("a stored photo alone runs a turn with the photo on its user message, a voice note with its transcript", async () => {
    const r = await withMedia({ unsupported: "reply" });
    const photo: AttachmentRef = {
      blob: "a".repeat(64),
      kind: "image",
      contentType: "image/png",
      size: 2048,
      name: "s.png",
    };
    await message(r, "dee", "", [photo, { refused: "size", kind: "video" }], "s1");
    await r.session.idle(20_000);
    const heard: AttachmentRef = {
      blob: "b".repeat(64),
      kind: "audio",
      contentType: "audio/ogg",
      size: 900,
      transcript: "call me",
    };
    await message(r, "dee", "hi", [heard], "s2");
    await r.session.idle(20_000);
    const users = (await memoryOf(r, "mock", "dee")).filter((m) => m.role === "user");
    // Refused files were answered on arrival and stay out of the turn.
    expect(users).toEqual([
      { role: "user", content: "", attachments: [photo] },
      { role: "user", content: "hi", attachments: [heard] },
    ]);
  });

  it("a transcribed voice note's reply starts with what the agent heard; showTranscript: false leaves it out", async () => {
    const voice = (blob: string): AttachmentRef => ({
      blob,
      kind: "audio",
      contentType: "audio/ogg",
      size: 900,
    });
    const r = await openRig({
      entries: [{ name: "mock", type: "mock", media: { unsupported: "reply" } }],
      script: [{ text: "At nine, then." }],
      transcribe: async () => "call me at nine",
    });
    await message(r, "eve", "", [voice("c".repeat(64))], "v1");
    await r.session.idle(20_000);
    expect(r.gateway.textsTo("eve")).toEqual(['🎙 "call me at nine"\n\nAt nine, then.']);
    const quiet = await openRig({
      entries: [{ name: "mock", type: "mock", media: { unsupported: "reply", showTranscript: false } }],
      script: [{ text: "At nine, then." }],
      transcribe: async () => "call me at nine",
    });
    await message(quiet, "fay", "", [voice("d".repeat(64))], "v2");
    await quiet.session.idle(20_000);
    expect(quiet.gateway.textsTo("fay")).toEqual(["At nine, then."]);
  });
});
