// Who serves a project folder's `data/` in tests: startProjectServer clears it on start and close, so
// two test files serving one folder at once deleted each other's SQLite store (examples/chat-fakes,
// #45). The first server of a test file (a process, or a worker thread of one) claims the folder
// with a lock file in `data/`; another file's start is refused while a live owner holds it. The
// servers of one file (instances of one cluster) share the claim: only the first clears `data/`.
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { threadId } from "node:worker_threads";

/** The lock file in `<root>/data`. */
export const DATA_CLAIM_FILE = ".test-server-owner";

interface Owner {
  pid: number;
  thread: number;
}

const me: Owner = { pid: process.pid, thread: threadId };
/** Live servers of this file (process and thread) per data folder. */
const serving = new Map<string, number>();

/** A claim on `data` for one server; `release` once it stopped (idempotent). */
export interface DataClaim {
  /** Drops this server's share (once); the last one removes `data/` (`clear`) or only the lock file. */
  release(clear: boolean): void;
}

/**
 * Claims `data` (a project's `data/` folder) for a server of this test file: the first clears it,
 * the next ones share it. Throws while another live process or thread holds it.
 */
export function claimData(data: string): DataClaim {
  const lock = join(data, DATA_CLAIM_FILE);
  if (!serving.get(data)) take(data, lock);
  serving.set(data, (serving.get(data) ?? 0) + 1);
  let released = false;
  return {
    release(clear) {
      if (released) {
        // A close after a shutdown: data/ goes unless a server claimed the folder since.
        if (clear && !serving.has(data) && !existsSync(lock)) rmSync(data, { recursive: true, force: true });
        return;
      }
      released = true;
      const left = (serving.get(data) ?? 1) - 1;
      if (left > 0) {
        serving.set(data, left);
        return;
      }
      serving.delete(data);
      if (clear) rmSync(data, { recursive: true, force: true });
      else rmSync(lock, { force: true });
    },
  };
}

/** Creates the lock file (taking over one whose owner is gone), then clears the rest of `data`. */
function take(data: string, lock: string): void {
  mkdirSync(data, { recursive: true });
  // Written aside and linked in: a lock file is never seen half written, and the link fails if one exists.
  const mine = `${lock}.${me.pid}.${me.thread}`;
  writeFileSync(mine, JSON.stringify(me));
  try {
    for (;;) {
      try {
        linkSync(mine, lock);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      let text: string;
      try {
        text = readFileSync(lock, "utf8");
      } catch {
        continue; // given back meanwhile: link again
      }
      const owner = parseOwner(text);
      if (owner && alive(owner))
        throw new Error(
          `${data} is served by another test server now (process ${owner.pid}, thread ${owner.thread}): ` +
            "startProjectServer clears <root>/data on start and close, so each test file needs a project folder of its own (e.g. a mkdtemp copy)",
        );
      rmSync(lock, { force: true }); // its owner is gone (a killed run, or this thread's server never closed)
    }
  } finally {
    rmSync(mine, { force: true });
  }
  for (const entry of readdirSync(data)) {
    if (!entry.startsWith(DATA_CLAIM_FILE)) rmSync(join(data, entry), { recursive: true, force: true });
  }
}

function parseOwner(text: string): Owner | undefined {
  try {
    return JSON.parse(text) as Owner;
  } catch {
    return undefined; // not written by this helper: no owner
  }
}

/**
 * Whether the owner may still serve: its process runs, and it is not this very thread (which holds
 * no claim on the folder now: a server of it that was never closed, or one of a file before).
 */
function alive(owner: Owner): boolean {
  if (owner.pid === me.pid) return owner.thread !== me.thread;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
