// An upload's body written to a temporary file while it streams: the byte cap is checked on every
// read (a body without Content-Length cannot outgrow it either) and the type is decided from the
// first bytes (never the browser's claim or the file name), so a refused file stops the transfer
// early and memory stays at one read whatever the file's size.
import { createWriteStream } from "node:fs";
import type { AttachmentKind } from "@agentsvc/agent-core";
import { sniff } from "@agentsvc/webhook-kit";

/** Bytes read before the type is decided (or all of a shorter file). */
const HEAD_BYTES = 4100;

export type Spooled =
  | { ok: true; size: number; contentType: string; kind: AttachmentKind }
  | { ok: false; refused: "size"; size: number }
  | { ok: false; refused: "type"; contentType: string; kind: AttachmentKind };

export async function spoolUpload(
  body: ReadableStream<Uint8Array>,
  path: string,
  limits: { maxBytes: number; types: readonly AttachmentKind[] },
): Promise<Spooled> {
  const out = createWriteStream(path);
  const reader = body.getReader();
  const write = (chunk: Uint8Array) =>
    new Promise<void>((resolve, reject) => out.write(chunk, (err) => (err ? reject(err) : resolve())));
  let size = 0;
  let head: Uint8Array[] = [];
  let headBytes = 0;
  let typed: { contentType: string; kind: AttachmentKind } | undefined;
  const decide = async () => {
    const sniffed = await sniff(Buffer.concat(head));
    head = [];
    return sniffed;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBytes) {
        await reader.cancel().catch(() => {});
        return { ok: false, refused: "size", size };
      }
      if (!typed) {
        head.push(value);
        headBytes += value.byteLength;
        if (headBytes >= HEAD_BYTES) {
          typed = await decide();
          if (!limits.types.includes(typed.kind)) {
            await reader.cancel().catch(() => {});
            return { ok: false, refused: "type", ...typed };
          }
        }
      }
      await write(value);
    }
    typed ??= await decide();
    if (!limits.types.includes(typed.kind)) return { ok: false, refused: "type", ...typed };
    return { ok: true, size, ...typed };
  } finally {
    await new Promise<void>((resolve) => out.end(resolve));
  }
}
