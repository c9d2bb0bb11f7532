// A whole run's temp folder on a RAM filesystem (#45.6). The tests write their stores, PostgreSQL
// data directories (a copy of the initdb template per server), Dovecot folders, Chromium profiles
// and npm installs under os.tmpdir(); on the ext4 /tmp the kernel's share of that was about half a
// file-heavy package's CPU. chat-store's package run, two alternated pairs at load 10-22: 96 / 99
// CPU-s (47 / 55 of them the kernel's) with TMPDIR=/tmp, 64 / 64 (21 / 21) with TMPDIR=/dev/shm.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";

const TMPFS_MAGIC = 0x01021994;
const GIB = 2 ** 30;

/** MemAvailable in bytes (os.freemem() is MemFree on some Node versions: page cache not counted). */
function memAvailable(): number {
  const kib = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1];
  return Number(kib ?? 0) * 1024;
}

/**
 * Points TMPDIR (os.tmpdir() of this process and the workers and children it starts) at a folder
 * of its own on /dev/shm when that is a tmpfs with 4 GiB free and the machine has 6 GiB of memory
 * available; removes it when the run's process exits, so files a test leaves behind do not pile up
 * in memory. Sticky and world-writable as /tmp: PostgreSQL and Dovecot run as users of their own.
 * AGENTSVC_TEST_TMPDIR=os keeps the OS temp folder (e.g. to compare).
 */
export function useRamTmpDir(): void {
  if (process.env.AGENTSVC_TEST_TMPDIR === "os" || process.env.AGENTSVC_TEST_RUN_TMPDIR) return;
  try {
    const shm = statfsSync("/dev/shm");
    if (shm.type !== TMPFS_MAGIC || shm.bavail * shm.bsize < 4 * GIB || memAvailable() < 6 * GIB) return;
  } catch {
    return; // No /dev/shm or /proc/meminfo (not Linux): the OS temp folder.
  }
  const dir = mkdtempSync("/dev/shm/agentsvc-");
  chmodSync(dir, 0o1777);
  // Where a cache meant to outlive the run goes (pg-test's initdb template).
  process.env.AGENTSVC_TEST_OS_TMPDIR = tmpdir();
  process.env.TMPDIR = dir;
  process.env.AGENTSVC_TEST_RUN_TMPDIR = dir;
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
}
