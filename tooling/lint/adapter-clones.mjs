#!/usr/bin/env node
// Part of `pnpm lint`: no block of six or more source lines repeated between two adapter packages
// (#42). jscpd finds the clones in packages/gateway-*/src; a clone inside one package is allowed
// (a package may repeat itself), one between two packages means the code belongs in adapter-kit
// (or markdown / webhook-kit). There is no allow-list: every such clone fails.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const MIN_LINES = 6;

/** The adapter package a path lies in (`gateway-slack`), or undefined. */
export function adapterOf(file) {
  return /(?:^|\/)packages\/(gateway-[^/]+)\//.exec(file)?.[1];
}

/** jscpd's duplicates (json report) reduced to those between two adapter packages. */
export function crossAdapterClones(root, duplicates) {
  const clones = [];
  for (const d of duplicates) {
    const a = relative(root, d.firstFile.name);
    const b = relative(root, d.secondFile.name);
    const pa = adapterOf(a);
    const pb = adapterOf(b);
    if (!pa || !pb || pa === pb) continue;
    clones.push({
      where: `${a}:${d.firstFile.start}-${d.firstFile.end} ~ ${b}:${d.secondFile.start}-${d.secondFile.end}`,
      lines: d.lines,
    });
  }
  return clones;
}

/** Runs jscpd over `dirs` (absolute paths) and returns its duplicates. */
export function runJscpd(root, dirs, minLines = MIN_LINES) {
  const out = mkdtempSync(join(tmpdir(), "adapter-clones-"));
  try {
    execFileSync(
      join(root, "node_modules/.bin/jscpd"),
      ["--min-lines", String(minLines), "--format", "typescript", "--absolute", "--no-colors"].concat([
        "--reporters",
        "json",
        "--output",
        out,
        ...dirs,
      ]),
      { stdio: ["ignore", "ignore", "inherit"] },
    );
    return JSON.parse(readFileSync(join(out, "jscpd-report.json"), "utf8")).duplicates;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

// Run as a script (not imported). Not `import.meta.main`: Node before 24.2 leaves it undefined,
// which would skip the check and pass.
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  const root = join(import.meta.dirname, "../..");
  const dirs = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "packages"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .map((f) => /^packages\/gateway-[^/]+\/src\//.exec(f)?.[0])
    .filter((d, i, all) => d && all.indexOf(d) === i)
    .map((d) => join(root, d));
  const clones = crossAdapterClones(root, runJscpd(root, dirs));
  if (clones.length > 0) {
    console.error(
      `${clones.length} block(s) of ${MIN_LINES}+ lines repeated between two adapter packages:\n` +
        clones.map((c) => `  ${c.where} (${c.lines} lines)`).join("\n") +
        "\nMove the shared code into @agentsvc/adapter-kit (or markdown / webhook-kit) and use it from both.",
    );
    process.exit(1);
  }
  console.log(`adapter clones: none between ${dirs.length} adapter packages`);
}
