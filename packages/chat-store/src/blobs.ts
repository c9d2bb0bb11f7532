// Stored files (issue #46): content-addressed by the sha256 of their bytes, so the same picture
// sent twice (or by two users, or fetched by two instances) is one blob. The bytes live in 256 KiB
// pieces (blob_chunks) so neither a write from a spooled file nor a read holds a whole file in
// one statement. A byte cap and a retention period bound the store; prune() runs with the rest of
// the housekeeping. Also here: which platform file a gateway already fetched (a redelivered
// message downloads nothing twice) and the transcript of an audio blob.
import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import type { StoreContext } from "./context.js";
import { and, asc, desc, eq, gte, isNotNull, lt, sql } from "./orm.js";
import { statusIn, unfinishedIn } from "./status-in.js";

export const BLOB_CHUNK_BYTES = 256 * 1024;

export interface BlobOptions {
  /** Total bytes kept; the least recently used blobs go first beyond it. Default 1 GiB. */
  maxBytes?: number;
  /** A blob not used for this long is deleted. Default 30 days. */
  retentionMs?: number;
  /** How long an upload waiting to be sent (holdUpload) is kept whatever the cap and retention. Default 24 hours. */
  uploadHoldMs?: number;
}

export const DEFAULT_BLOB_OPTIONS: Required<BlobOptions> = {
  maxBytes: 1024 * 1024 * 1024,
  retentionMs: 30 * 24 * 60 * 60 * 1000,
  uploadHoldMs: 24 * 60 * 60 * 1000,
};

// An upload's hold is a download record of this pseudo-gateway (gateways are `<type>:<entry>`),
// keyed by the blob, so it goes with the blob and needs no table of its own.
const UPLOAD_HOLD = "upload-hold";

export interface BlobInfo {
  sha256: string;
  size: number;
  contentType: string;
  createdAt: number;
  usedAt: number;
}

/** What a gateway recorded for a platform file: the blob it became, or why it was refused. */
export type DownloadRecord = { sha256: string } | { refused: string };

const SHA256 = /^[0-9a-f]{64}$/;

export class BlobStore {
  readonly #options: Required<BlobOptions>;

  constructor(
    private readonly ctx: StoreContext,
    options: BlobOptions = {},
  ) {
    this.#options = { ...DEFAULT_BLOB_OPTIONS, ...options };
  }

  private get t() {
    return this.ctx.tables;
  }

  /** Stores bytes held in memory (a tool's file, a small upload); the same bytes again only touch the blob. */
  async put(bytes: Uint8Array, contentType: string): Promise<BlobInfo> {
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return this.#store(sha256, data.length, contentType, async function* () {
      for (let at = 0; at < data.length; at += BLOB_CHUNK_BYTES)
        yield data.subarray(at, at + BLOB_CHUNK_BYTES);
    });
  }

  /**
   * Stores a spooled file (what the download helper writes while it streams): hashed in one pass,
   * written in 256 KiB pieces in a second, so memory stays at one piece whatever the file's size.
   */
  async putFile(path: string, contentType: string): Promise<BlobInfo> {
    const hash = createHash("sha256");
    let size = 0;
    for await (const piece of readPieces(path)) {
      hash.update(piece);
      size += piece.length;
    }
    return this.#store(hash.digest("hex"), size, contentType, () => readPieces(path));
  }

  async #store(
    sha256: string,
    size: number,
    contentType: string,
    pieces: () => AsyncIterable<Buffer>,
  ): Promise<BlobInfo> {
    const now = this.ctx.now();
    return this.ctx.transaction(async () => {
      const existing = await this.info(sha256);
      if (existing) {
        await this.ctx.run((db) =>
          db.update(this.t.blobs).set({ usedAt: now }).where(eq(this.t.blobs.sha256, sha256)),
        );
        return { ...existing, usedAt: now };
      }
      let seq = 0;
      for await (const data of pieces()) {
        const n = seq++;
        await this.ctx.run((db) =>
          db.insert(this.t.blobChunks).values({ sha256, seq: n, data: Buffer.from(data) }),
        );
      }
      const row = { sha256, size, contentType, chunks: seq, createdAt: now, usedAt: now };
      await this.ctx.run((db) => db.insert(this.t.blobs).values(row));
      return { sha256, size, contentType, createdAt: now, usedAt: now };
    });
  }

  async info(sha256: string): Promise<BlobInfo | undefined> {
    if (!SHA256.test(sha256)) return undefined;
    const b = this.t.blobs;
    const rows = await this.ctx.run((db) =>
      db
        .select({
          sha256: b.sha256,
          size: b.size,
          contentType: b.contentType,
          createdAt: b.createdAt,
          usedAt: b.usedAt,
        })
        .from(b)
        .where(eq(b.sha256, sha256)),
    );
    return rows[0];
  }

  /** The blob's bytes piece by piece (one statement per piece: a 100 MB file is never one row set). */
  async *pieces(sha256: string): AsyncGenerator<Buffer> {
    const info = await this.#chunkCount(sha256);
    if (info === undefined) return;
    const c = this.t.blobChunks;
    for (let seq = 0; seq < info; seq++) {
      const rows = await this.ctx.run((db) =>
        db.select({ data: c.data }).from(c).where(sql`${c.sha256} = ${sha256} and ${c.seq} = ${seq}`),
      );
      const data = rows[0]?.data;
      if (!data) return;
      yield Buffer.from(data);
    }
  }

  /** The whole blob, or undefined when it is not stored (never was, or pruned). */
  async read(sha256: string): Promise<Buffer | undefined> {
    if ((await this.#chunkCount(sha256)) === undefined) return undefined;
    const parts: Buffer[] = [];
    for await (const piece of this.pieces(sha256)) parts.push(piece);
    return Buffer.concat(parts);
  }

  async #chunkCount(sha256: string): Promise<number | undefined> {
    if (!SHA256.test(sha256)) return undefined;
    const b = this.t.blobs;
    const rows = await this.ctx.run((db) =>
      db.select({ chunks: b.chunks }).from(b).where(eq(b.sha256, sha256)),
    );
    return rows[0]?.chunks;
  }

  /** A blob a message or a reply uses again is kept as long as a new one. */
  async touch(sha256: string): Promise<void> {
    const now = this.ctx.now();
    await this.ctx.run((db) =>
      db.update(this.t.blobs).set({ usedAt: now }).where(eq(this.t.blobs.sha256, sha256)),
    );
  }

  /** Records what a platform file became (first record wins: a retry of the same message finds it). */
  async recordDownload(gateway: string, sourceKey: string, record: DownloadRecord): Promise<void> {
    const values = {
      gateway,
      sourceKey,
      sha256: "sha256" in record ? record.sha256 : null,
      refused: "refused" in record ? record.refused : null,
      createdAt: this.ctx.now(),
    };
    await this.ctx.run((db) => db.insert(this.t.mediaDownloads).values(values).onConflictDoNothing());
  }

  /** What a platform file became, when this gateway fetched it before (and its blob is still stored). */
  async download(gateway: string, sourceKey: string): Promise<DownloadRecord | undefined> {
    const m = this.t.mediaDownloads;
    const rows = await this.ctx.run((db) =>
      db
        .select({ sha256: m.sha256, refused: m.refused })
        .from(m)
        .where(sql`${m.gateway} = ${gateway} and ${m.sourceKey} = ${sourceKey}`),
    );
    const row = rows[0];
    if (!row) return undefined;
    if (row.refused !== null) return { refused: row.refused };
    if (row.sha256 === null || !(await this.info(row.sha256))) return undefined;
    return { sha256: row.sha256 };
  }

  /**
   * Keeps a blob uploaded but not yet sent (the chat page's composer holds it) from prune for
   * `uploadHoldMs` from now; uploading it again renews the hold. Bounded, so a page left open does
   * not hold the store's bytes for ever.
   */
  async holdUpload(sha256: string): Promise<void> {
    const now = this.ctx.now();
    const m = this.t.mediaDownloads;
    const values = { gateway: UPLOAD_HOLD, sourceKey: sha256, sha256, refused: null, createdAt: now };
    await this.ctx.run((db) =>
      db
        .insert(m)
        .values(values)
        .onConflictDoUpdate({ target: [m.gateway, m.sourceKey], set: { createdAt: now } }),
    );
  }

  async transcript(sha256: string): Promise<{ model: string; text: string } | undefined> {
    const tr = this.t.blobTranscripts;
    const rows = await this.ctx.run((db) =>
      db.select({ model: tr.model, text: tr.text }).from(tr).where(eq(tr.sha256, sha256)),
    );
    return rows[0];
  }

  async setTranscript(sha256: string, model: string, text: string): Promise<void> {
    const values = { sha256, model, text, createdAt: this.ctx.now() };
    await this.ctx.run((db) => db.insert(this.t.blobTranscripts).values(values).onConflictDoNothing());
  }

  /**
   * Deletes blobs unused for the retention period, then the least recently used ones while the
   * total exceeds the byte cap; their pieces, transcripts and download records go with them.
   * A blob a pending file piece, an unfinished message or a held upload still needs is kept either
   * way (the cap may stay exceeded until they are done).
   */
  async prune(now = this.ctx.now()): Promise<number> {
    const b = this.t.blobs;
    const needed = await this.#needed(now);
    const expired = await this.ctx.run((db) =>
      db
        .select({ sha256: b.sha256 })
        .from(b)
        .where(lt(b.usedAt, now - this.#options.retentionMs)),
    );
    const doomed = expired.map((r) => r.sha256).filter((sha256) => !needed.has(sha256));
    const totals = await this.ctx.run((db) =>
      db.select({ total: sql<number>`coalesce(sum(${b.size}), 0)` }).from(b),
    );
    let excess = Number(totals[0]?.total ?? 0) - this.#options.maxBytes;
    const gone = new Set([...doomed, ...needed]);
    if (excess > 0) {
      const sizes = await this.ctx.run((db) =>
        db.select({ sha256: b.sha256, size: b.size }).from(b).orderBy(asc(b.usedAt), desc(b.size)),
      );
      for (const row of sizes) {
        if (excess <= 0) break;
        if (needed.has(row.sha256)) continue;
        excess -= row.size;
        if (!gone.has(row.sha256)) {
          gone.add(row.sha256);
          doomed.push(row.sha256);
        }
      }
    }
    for (const sha256 of doomed) await this.#delete(sha256);
    return doomed.length;
  }

  /** Blobs of pending `file` outbox pieces, of messages not yet answered (queued or running) and of held uploads. */
  async #needed(now: number): Promise<Set<string>> {
    const { outbox: o, inbox: i, mediaDownloads: m } = this.t;
    const pieces = await this.ctx.run((db) =>
      db
        .select({ payload: o.payload })
        .from(o)
        .where(and(eq(o.kind, "file"), statusIn(o.status, ["pending"]))),
    );
    const messages = await this.ctx.run((db) =>
      db
        .select({ attachments: i.attachments })
        .from(i)
        .where(and(unfinishedIn(i, ["queued", "running"]), isNotNull(i.attachments))),
    );
    const held = await this.ctx.run((db) =>
      db
        .select({ sha256: m.sha256 })
        .from(m)
        .where(and(eq(m.gateway, UPLOAD_HOLD), gte(m.createdAt, now - this.#options.uploadHoldMs))),
    );
    const needed = new Set<string>();
    for (const { sha256 } of held) if (sha256) needed.add(sha256);
    for (const { payload } of pieces) addBlobs(needed, [payload]);
    for (const { attachments } of messages) addBlobs(needed, attachments);
    return needed;
  }

  async #delete(sha256: string): Promise<void> {
    const t = this.t;
    await this.ctx.transaction(async () => {
      await this.ctx.run((db) => db.delete(t.blobChunks).where(eq(t.blobChunks.sha256, sha256)));
      await this.ctx.run((db) => db.delete(t.blobTranscripts).where(eq(t.blobTranscripts.sha256, sha256)));
      await this.ctx.run((db) => db.delete(t.mediaDownloads).where(eq(t.mediaDownloads.sha256, sha256)));
      await this.ctx.run((db) => db.delete(t.blobs).where(eq(t.blobs.sha256, sha256)));
    });
  }
}

/** The `blob` of each JSON object (a file piece's payload) or of each entry of a JSON list (attachment refs). */
function addBlobs(into: Set<string>, stored: unknown): void {
  const value = typeof stored === "string" ? safeParse(stored) : stored;
  if (Array.isArray(value)) for (const v of value) addBlobs(into, v);
  else if (typeof value === "object" && value !== null) {
    const blob = (value as { blob?: unknown }).blob;
    if (typeof blob === "string") into.add(blob);
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function* readPieces(path: string): AsyncGenerator<Buffer> {
  const handle = await open(path, "r");
  try {
    for (;;) {
      const buffer = Buffer.alloc(BLOB_CHUNK_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, BLOB_CHUNK_BYTES, null);
      if (bytesRead === 0) return;
      yield bytesRead === BLOB_CHUNK_BYTES ? buffer : buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}
