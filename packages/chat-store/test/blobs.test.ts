// Stored files on both dialects: content-addressed and deduplicated across instances, written and
// read in pieces, a platform file recorded once per gateway, transcripts beside the blob, and the
// retention period and byte cap enforced by prune.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BLOB_CHUNK_BYTES } from "../src/index.js";
import { clock, eachDriver, tempRoot } from "./helpers.js";

const DAY = 86_400_000;

eachDriver((driver) => {
  describe("blob store", () => {
    it("stores a spooled file in pieces under its sha256 and another instance reads the same bytes", async () => {
      const appRoot = tempRoot();
      const a = await driver.open({ appRoot });
      const b = await driver.open({ appRoot });
      const bytes = randomBytes(BLOB_CHUNK_BYTES * 2 + 123);
      const file = join(tempRoot(), "spool");
      writeFileSync(file, bytes);
      const info = await a.blobs.putFile(file, "image/png");
      expect(info).toMatchObject({ size: bytes.length, contentType: "image/png" });
      expect(info.sha256).toMatch(/^[0-9a-f]{64}$/);
      const pieces: Buffer[] = [];
      for await (const piece of b.blobs.pieces(info.sha256)) pieces.push(piece);
      expect(pieces.map((p) => p.length)).toEqual([BLOB_CHUNK_BYTES, BLOB_CHUNK_BYTES, 123]);
      expect(Buffer.concat(pieces).equals(bytes)).toBe(true);
      expect((await b.blobs.read(info.sha256))?.equals(bytes)).toBe(true);
    });

    it("keeps one copy of the same bytes put twice (from memory and from a file) and answers unknown ids with nothing", async () => {
      const db = await driver.open();
      const bytes = randomBytes(1000);
      const first = await db.blobs.put(bytes, "application/pdf");
      const file = join(tempRoot(), "again");
      writeFileSync(file, bytes);
      const second = await db.blobs.putFile(file, "application/pdf");
      expect(second.sha256).toBe(first.sha256);
      const again = [];
      for await (const p of db.blobs.pieces(first.sha256)) again.push(p);
      expect(again).toHaveLength(1);
      expect(await db.blobs.read("0".repeat(64))).toBeUndefined();
      expect(await db.blobs.read("../etc/passwd")).toBeUndefined();
    });

    it("remembers what a platform file became per gateway (first record wins) and forgets it with its blob", async () => {
      const c = clock(Date.now());
      const db = await driver.open({ now: c.now, blobs: { retentionMs: DAY } });
      const blob = await db.blobs.put(Buffer.from("voice"), "audio/ogg");
      await db.blobs.recordDownload("telegram", "file-1", { sha256: blob.sha256 });
      await db.blobs.recordDownload("telegram", "file-1", { refused: "size" });
      await db.blobs.recordDownload("telegram", "file-2", { refused: "size" });
      expect(await db.blobs.download("telegram", "file-1")).toEqual({ sha256: blob.sha256 });
      expect(await db.blobs.download("telegram", "file-2")).toEqual({ refused: "size" });
      expect(await db.blobs.download("slack", "file-1")).toBeUndefined();
      await db.blobs.setTranscript(blob.sha256, "whisper-1", "hello there");
      expect(await db.blobs.transcript(blob.sha256)).toEqual({ model: "whisper-1", text: "hello there" });
      c.advance(DAY + 1);
      expect(await db.blobs.prune()).toBe(1);
      expect(await db.blobs.download("telegram", "file-1")).toBeUndefined();
      expect(await db.blobs.transcript(blob.sha256)).toBeUndefined();
    });

    it("keeps a held upload past the retention period and the byte cap until its hold ends; holding again renews it", async () => {
      const c = clock(Date.now());
      const db = await driver.open({
        now: c.now,
        blobs: { retentionMs: DAY, maxBytes: 10, uploadHoldMs: 2 * DAY },
      });
      const held = await db.blobs.put(randomBytes(100), "image/png");
      await db.blobs.holdUpload(held.sha256);
      const loose = await db.blobs.put(randomBytes(100), "image/png");
      c.advance(DAY + 1);
      expect(await db.blobs.prune()).toBe(1);
      expect(await db.blobs.info(loose.sha256)).toBeUndefined();
      await db.blobs.holdUpload(held.sha256);
      c.advance(2 * DAY - 1);
      expect(await db.blobs.prune()).toBe(0);
      c.advance(2);
      expect(await db.blobs.prune()).toBe(1);
      expect(await db.blobs.info(held.sha256)).toBeUndefined();
    });

    it("prunes blobs unused past the retention period, then the least recently used beyond the byte cap", async () => {
      const c = clock(Date.now());
      const db = await driver.open({ now: c.now, blobs: { retentionMs: 10 * DAY, maxBytes: 2500 } });
      const old = await db.blobs.put(randomBytes(100), "image/png");
      c.advance(10 * DAY + 1);
      const a = await db.blobs.put(randomBytes(1000), "image/png");
      c.advance(1);
      const b = await db.blobs.put(randomBytes(1000), "image/png");
      c.advance(1);
      const d = await db.blobs.put(randomBytes(1000), "image/png");
      c.advance(1);
      await db.blobs.touch(a.sha256);
      expect(await db.blobs.prune()).toBe(2);
      expect(await db.blobs.info(old.sha256)).toBeUndefined();
      expect(await db.blobs.info(b.sha256)).toBeUndefined();
      expect(await db.blobs.info(a.sha256)).toBeDefined();
      expect(await db.blobs.info(d.sha256)).toBeDefined();
    });
    it("keeps a blob a pending file piece or an unfinished message still needs, past the byte cap and the retention period", async () => {
      const c = clock(Date.now());
      const db = await driver.open({ now: c.now, blobs: { retentionMs: 10 * DAY, maxBytes: 1500 } });
      // Oldest first: the ones still needed are the least recently used.
      const queued = await db.blobs.put(randomBytes(1000), "image/png");
      c.advance(1);
      const reply = await db.blobs.put(randomBytes(1000), "application/pdf");
      c.advance(1);
      const sent = await db.blobs.put(randomBytes(1000), "application/pdf");
      c.advance(1);
      const answered = await db.blobs.put(randomBytes(1000), "image/png");
      const origin = { gateway: "telegram", thread: "t" };
      const ref = (sha256: string) => [
        { blob: sha256, kind: "image" as const, contentType: "image/png", size: 1000 },
      ];
      await db.inbox.accept({
        gateway: "telegram",
        dedupKey: "m1",
        thread: "t",
        text: "",
        origin,
        attachments: ref(queued.sha256),
      });
      const done = await db.inbox.accept({
        gateway: "telegram",
        dedupKey: "m2",
        thread: "t",
        text: "",
        origin,
        attachments: ref(answered.sha256),
      });
      if (done.accepted) await db.inbox.markDone(done.id, "done");
      const piece = (sha256: string, key: string) => ({
        gateway: "telegram",
        thread: "t",
        idemKey: key,
        kind: "file" as const,
        payload: { blob: sha256, name: "r.pdf", contentType: "application/pdf", size: 1000 },
      });
      const [, sentId] = await db.outbox.enqueue([piece(reply.sha256, "k1"), piece(sent.sha256, "k2")]);
      await db.outbox.markSent(sentId as number, "p1");
      // 4000 bytes over a 1500-byte cap: only the finished ones may go, though they are newer.
      expect(await db.blobs.prune()).toBe(2);
      expect(await db.blobs.info(queued.sha256)).toBeDefined();
      expect(await db.blobs.info(reply.sha256)).toBeDefined();
      expect(await db.blobs.info(sent.sha256)).toBeUndefined();
      expect(await db.blobs.info(answered.sha256)).toBeUndefined();
      // Past the retention period too, they stay while needed.
      c.advance(10 * DAY + 1);
      expect(await db.blobs.prune()).toBe(0);
      expect(await db.blobs.read(queued.sha256)).toBeDefined();
    });
  });

  describe("inbox attachments", () => {
    it("keeps a message's attachment refs with its record", async () => {
      const db = await driver.open();
      const refs = [
        { blob: "a".repeat(64), kind: "image" as const, contentType: "image/jpeg", size: 10, name: "p.jpg" },
        { refused: "size" as const, kind: "video" as const, size: 99 },
      ];
      const origin = { gateway: "telegram", thread: "t" };
      const r = await db.inbox.accept({
        gateway: "telegram",
        dedupKey: "m1",
        thread: "t",
        text: "",
        origin,
        attachments: refs,
      });
      await db.inbox.accept({ gateway: "telegram", dedupKey: "m2", thread: "t", text: "hi", origin });
      const unfinished = await db.inbox.unfinished();
      expect(unfinished.find((x) => x.id === (r.accepted ? r.id : -1))?.attachments).toEqual(refs);
      expect(unfinished.find((x) => x.dedupKey === "m2")?.attachments).toBeUndefined();
    });
  });
});
