// What a platform's payload claims about a file (content type, name, size), read from its untyped
// fields. The claimed kind only refuses early; webhook-kit's fetch types the file by its bytes.
import type { AttachmentKind } from "@agentsvc/agent-core";

/** The kind a content type names: image, audio or video by its top-level type, else document. */
export function attachmentKindOf(contentType: string): AttachmentKind {
  const top = contentType.split("/")[0];
  return top === "image" || top === "audio" || top === "video" ? top : "document";
}

/** The kind, and the name and size when the payload gives them as a string and a number. */
export function claimedFile(
  contentType: unknown,
  name: unknown,
  size: unknown,
): { kind: AttachmentKind; name?: string; size?: number } {
  return {
    kind: attachmentKindOf(typeof contentType === "string" ? contentType : ""),
    ...(typeof name === "string" ? { name } : {}),
    ...(typeof size === "number" ? { size } : {}),
  };
}
