// A mail's MIME parts (RFC 2046 multipart/mixed, https://www.rfc-editor.org/rfc/rfc2046#section-5.1.3)
// appended to the real Dovecot mailbox, read by the gateway's IMAP poll in a real session: each part
// typed by its bytes, checked against the entry's media block and stored before deliver.
import type { Inbound, SessionBlobs } from "@agentsvc/adapter-kit";
import { dovecotMissing } from "@agentsvc/testkit";
import { type MemoryBlobs, memoryBlobs } from "@agentsvc/testkit/session";
import { describe, expect, it } from "vitest";
import { createGateway, type EmailGatewayOptions } from "../src/index.js";
import { emailHarness } from "./harness.js";
import { LoggedRig, until, useDovecot } from "./rig.js";

const dovecot = useDovecot();

// A 1x1 PNG (signature, IHDR, IDAT, IEND) and a PDF head.
const PNG_B64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const PDF = Buffer.from("%PDF-1.7\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");

function mail(id: string, parts: string[]): string {
  return [
    "From: Finn <finn@example.org>",
    "To: bot@example.test",
    "Subject: photo",
    "Date: Wed, 25 Nov 2026 11:05:00 +0000",
    `Message-ID: <${id}@example.org>`,
    "MIME-Version: 1.0",
    'Content-Type: multipart/mixed; boundary="b_mixed"',
    "",
    ...parts.flatMap((p) => ["--b_mixed", p]),
    "--b_mixed--",
    "",
  ].join("\r\n");
}

const text = (t: string) => `Content-Type: text/plain; charset=utf-8\r\n\r\n${t}\r\n`;
const file = (name: string, type: string, b64: string) =>
  `Content-Type: ${type}; name="${name}"\r\nContent-Disposition: attachment; filename="${name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${b64}\r\n`;

async function boot(media?: EmailGatewayOptions["media"]): Promise<{
  delivered: Inbound[];
  blobs: MemoryBlobs;
  append: (raw: string) => Promise<void>;
}> {
  const harness = await emailHarness(await dovecot.started());
  const box = harness.box;
  const rig = new LoggedRig({
    ...harness,
    gateway: () => createGateway({ ...box.options(media ? { media } : {}), name: "email" }),
  });
  const blobs = memoryBlobs();
  // The in-process session store has no blob store of its own; the service's (chat-store) has.
  (rig.store as { blobs?: SessionBlobs }).blobs = blobs;
  await rig.start();
  const delivered: Inbound[] = [];
  rig.deliverHook = async (inbound, next) => {
    delivered.push(inbound);
    return next(inbound);
  };
  dovecot.onCleanup(async () => {
    await rig.stop();
    await box.close();
  });
  return {
    delivered,
    blobs,
    append: async (raw) => void (await box.observer.append("INBOX", raw)),
  };
}

describe.skipIf(dovecotMissing !== undefined)("e-mail attachments in", () => {
  it("stores a picture part typed by its bytes (the sender said octet-stream) and refuses a kind the entry does not take", async () => {
    const { delivered, blobs, append } = await boot({ types: ["image"], maxBytes: 1_000_000 });
    await append(
      mail("parts1", [
        text("what is on this whiteboard?"),
        file("whiteboard.png", "application/octet-stream", PNG_B64),
        file("notes.pdf", "application/pdf", PDF.toString("base64")),
      ]),
    );
    await until(() => delivered.length > 0, "the delivery");
    expect(delivered[0]?.text).toBe("what is on this whiteboard?");
    const [png, pdf] = delivered[0]?.attachments ?? [];
    expect(png).toMatchObject({ kind: "image", contentType: "image/png", name: "whiteboard.png" });
    expect(
      png && "blob" in png && blobs.stored.get(png.blob)?.bytes.equals(Buffer.from(PNG_B64, "base64")),
    ).toBe(true);
    expect(pdf).toEqual({ refused: "type", kind: "document", name: "notes.pdf" });
  });

  it("delivers a mail with only a part (no text) for the session's answer, refused without a media block", async () => {
    const { delivered, blobs } = await boot().then(async (b) => {
      await b.append(mail("parts2", [file("whiteboard.png", "image/png", PNG_B64)]));
      return b;
    });
    await until(() => delivered.length > 0, "the delivery");
    expect(delivered[0]?.text).toBe("");
    expect(delivered[0]?.attachments).toEqual([
      { refused: "disabled", kind: "image", name: "whiteboard.png" },
    ]);
    expect(blobs.stored.size).toBe(0);
  });

  it("refuses a part over media.maxBytes with its size", async () => {
    const { delivered, append } = await boot({ types: ["image", "document"], maxBytes: 20 });
    await append(mail("parts3", [text("big"), file("notes.pdf", "application/pdf", PDF.toString("base64"))]));
    await until(() => delivered.length > 0, "the delivery");
    expect(delivered[0]?.attachments).toEqual([
      { refused: "size", kind: "document", size: PDF.length, name: "notes.pdf" },
    ]);
  });
});
