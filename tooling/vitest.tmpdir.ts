// A whole run's temp folder on a RAM filesystem (#45.6). The tests write their stores, PostgreSQL
// data directories (a copy of the initdb template per server), Dovecot folders, Chromium profiles
// and npm installs under os.tmpdir(); on the ext4 /tmp the kernel's share of that was about half a
// file-heavy package's CPU. chat-store's package run, two alternated pairs at load 10-22: 96 / 99
// CPU-s (47 / 55 of them the kernel's) with TMPDIR=/tmp, 64 / 64 (21 / 21) with TMPDIR=/dev/shm.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const TMPFS_MAGIC = 0x01021994;
const GIB = 2 ** 30;
// A run's folder is named for the process that made it: `agentsvc-run-<pid>-<random>`.
const RUN_DIR = /^agentsvc-run-(\d+)-/;

/** MemAvailable in bytes (os.freemem() is MemFree on some Node versions: page cache not counted). */
function memAvailable(): number {
  const kib = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1];
  return Number(kib ?? 0) * 1024;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // Another user's live process.
  }
}

/**
 * Removes the run folders in `root` whose process is gone: a run killed with SIGKILL (a CI timeout,
 * a killed session) runs no exit handler, and its folder stayed in memory. A live run's folder stays
 * (so does one whose pid a new process took: until that one ends).
 */
function sweepRunDirs(root: string): void {
  for (const name of readdirSync(root)) {
    const pid = RUN_DIR.exec(name)?.[1];
    if (!pid || alive(Number(pid))) continue;
    try {
      rmSync(join(root, name), { recursive: true, force: true });
    } catch {
      // Files of another user (not root): left as they were.
    }
  }
}

/**
 * Points TMPDIR (os.tmpdir() of this process and the workers and children it starts) at a folder
 * of its own on /dev/shm when that is a tmpfs with 4 GiB free and the machine has 6 GiB of memory
 * available; removes it when the run's process exits, so files a test leaves behind do not pile up
 * in memory, and first removes the folders of earlier runs that were killed (`sweepRunDirs`).
 * Sticky and world-writable as /tmp: PostgreSQL and Dovecot run as users of their own.
 * AGENTSVC_TEST_TMPDIR=os keeps the OS temp folder (e.g. to compare).
 */
export function useRamTmpDir(): void {
  if (process.env.AGENTSVC_TEST_RUN_TMPDIR) return;
  try {
    if (statfsSync("/dev/shm").type !== TMPFS_MAGIC) return;
    // Before the room is measured: what killed runs left takes some of it.
    sweepRunDirs("/dev/shm");
    if (process.env.AGENTSVC_TEST_TMPDIR === "os") return;
    const shm = statfsSync("/dev/shm");
    if (shm.bavail * shm.bsize < 4 * GIB || memAvailable() < 6 * GIB) return;
  } catch {
    return; // No /dev/shm or /proc/meminfo (not Linux): the OS temp folder.
  }
  const dir = mkdtempSync(`/dev/shm/agentsvc-run-${process.pid}-`);
  chmodSync(dir, 0o1777);
  // Where a cache meant to outlive the run goes (pg-test's initdb template).
  process.env.AGENTSVC_TEST_OS_TMPDIR = tmpdir();
  process.env.TMPDIR = dir;
  process.env.AGENTSVC_TEST_RUN_TMPDIR = dir;
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
}
