// A bundle built in a staging folder moved into its place file by file, so that a program started
// from it while a build runs always finds a whole bundle, and a program already running finds the
// chunks it loads lazily. Swapping whole folders by two renames left the place empty between them,
// and removed the old folder, whose chunks a running program still imports by their paths.
//
// Chunks are named by their content's hash (esbuild's `chunk-<hash>.js`): a new build's chunks go in
// beside the old ones (a same name is the same content), then the entries (fixed names, e.g.
// main.js) are renamed over theirs, each whole, the ones a program loads first last. A later build
// removes what none of the last `keep` builds wrote (.builds.json lists each build's files).
//
// Two builds at once (two turbo runs, a test's build beside the watcher's) each read the list, then
// wrote their own build before it: one build fell out of the list, and its cleanup removed the
// other's chunks it had just moved in, under an entry that imports them. A swap now holds
// .builds.lock (created exclusively, naming its pid) from the list's read to the cleanup.
import { mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "./write-atomic.mjs";

const MANIFEST = ".builds.json";
const LOCK = ".builds.lock";
/** How long a swap waits between two tries of a lock another swap holds. */
const LOCK_RETRY_MS = 25;
/**
 * A lock this old is taken over whoever it names: a swap renames some hundred files in well under
 * a second, and a killed build's pid may have been given to another process since.
 */
const LOCK_STALE_MS = 60_000;

/**
 * Moves every file of `staging` into `outdir` (created if missing), `entries` last in their order,
 * then removes `staging` and the files of builds older than the last `keep`, holding `outdir`'s lock
 * throughout. `onMoved` (tests) is called after each file's rename, `onWaiting` (tests) each time
 * the lock is found held by another swap.
 */
export async function swapBundle(
  staging,
  outdir,
  { entries, keep = 3, onMoved = async () => {}, onWaiting = async () => {} },
) {
  const files = await readdir(staging, { withFileTypes: true });
  const nested = files.find((f) => !f.isFile());
  if (nested)
    throw new Error(`bundle-swap: ${join(staging, nested.name)} is not a file (a flat bundle only)`);
  const names = files.map((f) => f.name);
  for (const entry of entries)
    if (!names.includes(entry)) throw new Error(`bundle-swap: the entry ${entry} is not in ${staging}`);
  await mkdir(outdir, { recursive: true });
  await holding(join(outdir, LOCK), onWaiting, async () => {
    const builds = await earlierBuilds(outdir);
    const fixed = new Set(entries);
    for (const name of [...names.filter((n) => !fixed.has(n)), ...entries]) {
      await rename(join(staging, name), join(outdir, name));
      await onMoved(name);
    }
    await rm(staging, { recursive: true, force: true });
    const kept = [names.sort(), ...builds].slice(0, keep);
    await writeFileAtomic(join(outdir, MANIFEST), `${JSON.stringify(kept)}\n`);
    const wanted = new Set([MANIFEST, LOCK, ...kept.flat()]);
    for (const name of await readdir(outdir)) {
      if (!wanted.has(name)) await rm(join(outdir, name), { recursive: true, force: true });
    }
  });
}

/**
 * Runs `fn` holding the lock file `path`: created exclusively with this process's pid in it, removed
 * after. A lock whose pid is no longer running (a build killed mid-swap) is taken over.
 */
async function holding(path, onWaiting, fn) {
  for (;;) {
    try {
      const handle = await open(path, "wx");
      try {
        await handle.writeFile(String(process.pid));
      } finally {
        await handle.close();
      }
      break;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
    }
    if (await abandoned(path)) {
      await rm(path, { force: true });
      continue;
    }
    await onWaiting();
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
  try {
    return await fn();
  } finally {
    await rm(path, { force: true });
  }
}

/**
 * Whether the lock at `path` is older than LOCK_STALE_MS or names a process that is not running
 * (an empty one is being written).
 */
async function abandoned(path) {
  let pid;
  try {
    if (Date.now() - (await stat(path)).mtimeMs > LOCK_STALE_MS) return true;
    pid = Number((await readFile(path, "utf8")).trim());
  } catch (err) {
    if (err.code === "ENOENT") return false;
    throw err;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return err.code === "ESRCH";
  }
}

/** The file lists of the builds in `outdir`, newest first; a folder without a list is one build. */
async function earlierBuilds(outdir) {
  try {
    const listed = JSON.parse(await readFile(join(outdir, MANIFEST), "utf8"));
    if (Array.isArray(listed) && listed.every((b) => Array.isArray(b))) return listed;
  } catch (err) {
    if (err.code !== "ENOENT" && !(err instanceof SyntaxError)) throw err;
  }
  const present = (await readdir(outdir)).filter((n) => n !== MANIFEST && n !== LOCK);
  return present.length > 0 ? [present.sort()] : [];
}
