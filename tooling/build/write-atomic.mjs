// A build output written under a temp name beside it and renamed over the old one: a reader in
// another process (a test loading the package while a build runs) sees the whole old file or the
// whole new one, never a half-written one (a plain write truncates the file in place first).
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Writes `contents` to `path` by a rename of a temp file in the same folder (same file system). */
export async function writeFileAtomic(path, contents, encoding) {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  await mkdir(dirname(path), { recursive: true });
  try {
    await writeFile(temp, contents, encoding);
    await rename(temp, path);
  } finally {
    await rm(temp, { force: true });
  }
}
