// bundle-swap.mjs moves a bundle built in a staging folder into its place (the CLI's dist/bundle).
// Small hand-made bundles: an entry main.js that imports a content-named chunk at once and another
// lazily, as esbuild's splitting writes them.
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../../vitest.temp-dirs.js";
import { swapBundle } from "../bundle-swap.mjs";

type Swap = (
  staging: string,
  outdir: string,
  options: {
    entries: string[];
    keep?: number;
    onMoved?: (name: string) => Promise<void>;
    onWaiting?: () => Promise<void>;
  },
) => Promise<void>;
const swap = swapBundle as Swap;

/** A staging folder holding build `tag`: main.js, its chunk and its lazy chunk (names by tag). */
function built(root: string, tag: string): string {
  const staging = join(root, `.bundle-next-${tag}`);
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, `chunk-${tag}.js`), `export const tag = ${JSON.stringify(tag)};\n`);
  writeFileSync(join(staging, `lazy-${tag}.js`), `export const lazy = ${JSON.stringify(`lazy ${tag}`)};\n`);
  writeFileSync(
    join(staging, "main.js"),
    `import { tag } from "./chunk-${tag}.js";\nexport { tag };\nexport const later = () => import("./lazy-${tag}.js");\n`,
  );
  return staging;
}

/** The files main.js in `dir` imports, statically or lazily. */
const importsOf = (dir: string) =>
  [...readFileSync(join(dir, "main.js"), "utf8").matchAll(/"\.\/([\w-]+\.js)"/g)].map((m) => m[1] as string);

describe("swapBundle", () => {
  it("a program running from the old bundle still imports its lazy chunk after a new bundle is swapped in", async () => {
    const root = testTempDir("agentsvc-swap-");
    const outdir = join(root, "bundle");
    await swap(built(root, "AAAA1111"), outdir, { entries: ["main.js"] });
    const running = (await import(pathToFileURL(join(outdir, "main.js")).href)) as {
      tag: string;
      later: () => Promise<{ lazy: string }>;
    };
    await swap(built(root, "BBBB2222"), outdir, { entries: ["main.js"] });
    // Swapped as whole folders, the old folder (and lazy-AAAA1111.js) was removed.
    expect((await running.later()).lazy).toBe("lazy AAAA1111");
    const started = (await import(`${pathToFileURL(join(outdir, "main.js")).href}?second`)) as {
      tag: string;
    };
    expect(started.tag).toBe("BBBB2222");
  });

  it("at every rename the folder holds main.js and every file it imports (no moment without a bundle)", async () => {
    const root = testTempDir("agentsvc-swap-");
    const outdir = join(root, "bundle");
    await swap(built(root, "AAAA1111"), outdir, { entries: ["main.js"] });
    const seen: string[] = [];
    await swap(built(root, "BBBB2222"), outdir, {
      entries: ["main.js"],
      onMoved: async (name) => {
        seen.push(name);
        expect(existsSync(join(outdir, "main.js")), `after ${name}`).toBe(true);
        for (const file of importsOf(outdir))
          expect(existsSync(join(outdir, file)), `${file} after ${name}`).toBe(true);
      },
    });
    // The chunks first, the entry last.
    expect(seen.at(-1)).toBe("main.js");
    expect(seen).toHaveLength(3);
  });

  it("keeps the files of the last `keep` builds and removes older ones and the staging folder", async () => {
    const root = testTempDir("agentsvc-swap-");
    const outdir = join(root, "bundle");
    for (const tag of ["AAAA1111", "BBBB2222", "CCCC3333"])
      await swap(built(root, tag), outdir, { entries: ["main.js"], keep: 2 });
    expect(readdirSync(outdir).sort()).toEqual([
      ".builds.json",
      "chunk-BBBB2222.js",
      "chunk-CCCC3333.js",
      "lazy-BBBB2222.js",
      "lazy-CCCC3333.js",
      "main.js",
    ]);
    expect(JSON.parse(readFileSync(join(outdir, ".builds.json"), "utf8"))).toEqual([
      ["chunk-CCCC3333.js", "lazy-CCCC3333.js", "main.js"],
      ["chunk-BBBB2222.js", "lazy-BBBB2222.js", "main.js"],
    ]);
    expect(readdirSync(root).sort()).toEqual(["bundle"]);
  });

  it("a folder built before the list existed counts as one build", async () => {
    const root = testTempDir("agentsvc-swap-");
    const outdir = join(root, "bundle");
    mkdirSync(outdir);
    writeFileSync(join(outdir, "main.js"), "export const tag = 'old';\n");
    writeFileSync(join(outdir, "chunk-OLD00000.js"), "export {};\n");
    await swap(built(root, "AAAA1111"), outdir, { entries: ["main.js"], keep: 2 });
    expect(JSON.parse(readFileSync(join(outdir, ".builds.json"), "utf8"))).toEqual([
      ["chunk-AAAA1111.js", "lazy-AAAA1111.js", "main.js"],
      ["chunk-OLD00000.js", "main.js"],
    ]);
    expect(readdirSync(outdir)).toContain("chunk-OLD00000.js");
  });

  it("two swaps at once: both builds are listed, and the folder holds each entry's imports and no lock after", async () => {
    const root = testTempDir("agentsvc-swap-");
    const outdir = join(root, "bundle");
    await swap(built(root, "AAAA1111"), outdir, { entries: ["main.js"] });
    let second: Promise<void> | undefined;
    await swap(built(root, "BBBB2222"), outdir, {
      entries: ["main.js"],
      // After its first file, another build swaps in: this one goes on once that one has ended or
      // waits for the lock (without one, it ran to its end here, its cleanup removing this one's chunk).
      onMoved: async () => {
        if (second) return;
        let waiting!: () => void;
        const blocked = new Promise<void>((resolve) => {
          waiting = resolve;
        });
        second = swap(built(root, "CCCC3333"), outdir, {
          entries: ["main.js"],
          onWaiting: async () => waiting(),
        });
        await Promise.race([second, blocked]);
      },
    });
    await second;
    const listed = JSON.parse(readFileSync(join(outdir, ".builds.json"), "utf8")) as string[][];
    expect(listed.map((b) => b.find((f) => f.startsWith("chunk-"))).sort()).toEqual([
      "chunk-AAAA1111.js",
      "chunk-BBBB2222.js",
      "chunk-CCCC3333.js",
    ]);
    for (const file of importsOf(outdir)) expect(existsSync(join(outdir, file)), file).toBe(true);
    for (const build of listed)
      for (const file of build) expect(existsSync(join(outdir, file)), file).toBe(true);
    expect(existsSync(join(outdir, ".builds.lock"))).toBe(false);
  });

  it("takes over a lock left by a process that is no longer running", async () => {
    const root = testTempDir("agentsvc-swap-");
    const outdir = join(root, "bundle");
    mkdirSync(outdir);
    // A pid above Linux's pid_max (2^22): no process has it.
    writeFileSync(join(outdir, ".builds.lock"), String(2 ** 22 + 1));
    await swap(built(root, "AAAA1111"), outdir, { entries: ["main.js"] });
    expect(readdirSync(outdir).sort()).toEqual([
      ".builds.json",
      "chunk-AAAA1111.js",
      "lazy-AAAA1111.js",
      "main.js",
    ]);
  });

  it("takes over a lock older than a minute, though the pid it names is running (a killed build's pid given to another)", async () => {
    const root = testTempDir("agentsvc-swap-");
    const outdir = join(root, "bundle");
    mkdirSync(outdir);
    const lock = join(outdir, ".builds.lock");
    writeFileSync(lock, String(process.ppid));
    const old = new Date(Date.now() - 61_000);
    utimesSync(lock, old, old);
    await swap(built(root, "AAAA1111"), outdir, { entries: ["main.js"] });
    expect(existsSync(lock)).toBe(false);
    expect(readdirSync(outdir)).toContain("main.js");
  });

  it("refuses a staging folder without a named entry, moving nothing", async () => {
    const root = testTempDir("agentsvc-swap-");
    const outdir = join(root, "bundle");
    await expect(swap(built(root, "AAAA1111"), outdir, { entries: ["main.js", "main.cjs"] })).rejects.toThrow(
      /main\.cjs/,
    );
    expect(existsSync(outdir)).toBe(false);
  });
});
