// A payload's claim about a file: the kind by the content type's top-level type, the name and size
// only when they have the right type (a platform's missing or odd field is left out, not guessed).
import { describe, expect, it } from "vitest";
import { attachmentKindOf, claimedFile } from "../src/file-claim.js";

describe("attachmentKindOf", () => {
  it("names image, audio and video by the top-level type and everything else a document", () => {
    expect(attachmentKindOf("image/png")).toBe("image");
    expect(attachmentKindOf("audio/ogg; codecs=opus")).toBe("audio");
    expect(attachmentKindOf("video/mp4")).toBe("video");
    expect(attachmentKindOf("application/pdf")).toBe("document");
    expect(attachmentKindOf("text/plain")).toBe("document");
    expect(attachmentKindOf("")).toBe("document");
    expect(attachmentKindOf("imagex/png")).toBe("document");
  });
});

describe("claimedFile", () => {
  it("keeps a string name and a number size", () => {
    expect(claimedFile("image/jpeg", "a.jpg", 120)).toEqual({ kind: "image", name: "a.jpg", size: 120 });
  });

  it("leaves out a name or size of another type and takes a missing content type as a document", () => {
    expect(claimedFile(undefined, 7, "120")).toEqual({ kind: "document" });
    expect(claimedFile(null, undefined, undefined)).toEqual({ kind: "document" });
  });
});
