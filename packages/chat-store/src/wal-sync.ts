// Durability `power` without blocking the event loop: the connection runs `synchronous = NORMAL`
// (a COMMIT appends its frames to the `-wal` file and returns without syncing) and this class
// makes those frames durable with fdatasync(2) on libuv's thread pool, so the event loop keeps
// serving reads and collecting the next batch while the disk syncs. Syncing the WAL file is what
// makes previously committed WAL transactions durable (SQLite forum, "Switching pragma synchronous
// to upgrade durability", https://sqlite.org/forum/forumpost/d1a6bc7c4cd2baca); under NORMAL,
// SQLite itself still syncs the WAL before each checkpoint, the database after it, and the WAL
// header when the WAL is reused (https://www.sqlite.org/pragma.html#pragma_synchronous).
import { close, fdatasync, fsync, open } from "node:fs";
import { dirname } from "node:path";
import { promisify } from "node:util";

const openFile = promisify(open);
const closeFile = promisify(close);
const fsyncFd = promisify(fsync);
const fdatasyncFd = promisify(fdatasync);

/** Flushes one open file to the disk (tests inject an observable one). */
export type FlushFd = (fd: number) => Promise<void>;

export class WalSync {
  #fd: Promise<number> | undefined;
  /** The sync running now (it may have started before the caller's COMMIT). */
  #running: Promise<void> | undefined;
  /** The sync that starts once the running one ends, shared by every request made meanwhile. */
  #next: { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } | undefined;
  /** A failed sync leaves the kernel's dirty pages in an unknown state: every later request fails. */
  #failed: { error: unknown } | undefined;
  #closed = false;

  constructor(
    /** The database file; its WAL is `<file>-wal`. */
    private readonly file: string,
    private readonly flush: FlushFd = fdatasyncFd,
  ) {}

  /** Resolves once a sync that started after this call has finished: what was committed before it is on disk. */
  request(): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed.error);
    if (this.#closed) return Promise.reject(new Error(`${this.file}: the store is closed`));
    if (!this.#running) return this.#start();
    if (!this.#next) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((ok, fail) => {
        resolve = ok;
        reject = fail;
      });
      this.#next = { promise, resolve, reject };
    }
    return this.#next.promise;
  }

  #start(): Promise<void> {
    const run = this.#syncOnce().then(
      () => this.#done(),
      (error: unknown) => {
        this.#failed = { error };
        this.#done();
        throw error;
      },
    );
    this.#running = run;
    return run;
  }

  #done(): void {
    this.#running = undefined;
    const next = this.#next;
    this.#next = undefined;
    if (!next) return;
    if (this.#failed) next.reject(this.#failed.error);
    else this.#start().then(next.resolve, next.reject);
  }

  async #syncOnce(): Promise<void> {
    this.#fd ??= this.#openWal();
    await this.flush(await this.#fd);
  }

  /**
   * The WAL exists once a COMMIT wrote to it (the first request comes after one). Its directory
   * entry is synced once, so the file itself survives a power loss after its creation.
   */
  async #openWal(): Promise<number> {
    const fd = await openFile(`${this.file}-wal`, "r");
    const dir = await openFile(dirname(this.file), "r");
    try {
      await fsyncFd(dir);
    } finally {
      await closeFile(dir);
    }
    return fd;
  }

  /** Closes the WAL descriptor once the running sync (if any) has ended; later requests fail. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#running?.catch(() => undefined);
    await this.#next?.promise.catch(() => undefined);
    const fd = this.#fd;
    this.#fd = undefined;
    if (fd) await closeFile(await fd).catch(() => undefined);
  }
}
