// A lock between processes (and threads) on one machine: a file made with link(2), which fails when
// the name exists, so the file appears whole, holding its owner's pid and a token of its own.
import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";

export interface FileLock {
  /** Removes the lock file if it is still this one's. */
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // Another user's live process.
  }
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined; // Released meanwhile.
  }
}

/**
 * Takes the lock `path`, or answers undefined when another holds it (try again later). A lock whose
 * process is gone (killed while it held it) or that is older than `staleMs` (its holder hung) is
 * removed, for the next try to take. Two waiters removing one stale lock at once may let two
 * holders in: what the lock guards must stay correct without it, the lock only saves the work.
 */
export function tryLock(path: string, staleMs: number): FileLock | undefined {
  const token = `${process.pid} ${randomBytes(8).toString("hex")}`;
  const mine = `${path}.${randomBytes(8).toString("hex")}`;
  writeFileSync(mine, token);
  try {
    linkSync(mine, path);
    return {
      release() {
        if (read(path) === token) rmSync(path, { force: true });
      },
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const held = read(path);
    if (held === undefined) return undefined;
    let age: number;
    try {
      age = Date.now() - statSync(path).mtimeMs;
    } catch {
      return undefined;
    }
    if (!alive(Number(held.split(" ")[0])) || age > staleMs) rmSync(path, { force: true });
    return undefined;
  } finally {
    rmSync(mine, { force: true });
  }
}
