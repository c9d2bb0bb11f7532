#!/usr/bin/env node
// Part of `pnpm lint`: no block of six or more source lines repeated between two adapter packages
// (#42). jscpd finds the clones in packages/gateway-*/src; a clone inside one package is allowed
// (a package may repeat itself), one between two packages means the code belongs in adapter-kit
// (or markdown / webhook-kit). Pairs named in adapter-clones-allowed.json are the ones left when
// the check was added: they are reported as known, and anything else fails.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

export const MIN_LINES = 6;

/** The adapter package a path lies in (`gateway-slack`), or undefined. */
export function adapterOf(file) {
  return /(?:^|\/)packages\/(gateway-[^/]+)\//.exec(file)?.[1];
}

/** A clone's name that survives line moves: both files and a hash of the repeated text. */
export function cloneKey(a, b, fragment) {
  const text = fragment
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .join("\n");
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 12);
  return `${[a, b].sort().join(" ~ ")} #${hash}`;
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
      key: cloneKey(a, b, d.fragment),
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

if (import.meta.main) {
  const root = join(import.meta.dirname, "../..");
  const allowedFile = join(import.meta.dirname, "adapter-clones-allowed.json");
  const allowed = new Set(existsSync(allowedFile) ? JSON.parse(readFileSync(allowedFile, "utf8")) : []);
  const dirs = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "packages"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .map((f) => /^packages\/gateway-[^/]+\/src\//.exec(f)?.[0])
    .filter((d, i, all) => d && all.indexOf(d) === i)
    .map((d) => join(root, d));
  const clones = crossAdapterClones(root, runJscpd(root, dirs));
  const known = clones.filter((c) => allowed.has(c.key));
  const fresh = clones.filter((c) => !allowed.has(c.key));
  const gone = [...allowed].filter((k) => !clones.some((c) => c.key === k));
  if (known.length > 0)
    console.log(`${known.length} known clone(s) between adapters, in adapter-clones-allowed.json`);
  if (gone.length > 0 && process.argv.includes("--prune")) {
    // Drops the entries whose clone is gone; never adds one.
    const kept = [...allowed].filter((k) => !gone.includes(k));
    writeFileSync(allowedFile, `${JSON.stringify(kept, null, 2)}\n`);
    console.log(`${gone.length} entry(ies) whose clone is gone removed from adapter-clones-allowed.json`);
  } else if (gone.length > 0)
    console.log(
      `${gone.length} entry(ies) of tooling/lint/adapter-clones-allowed.json no longer found: remove them (--prune)`,
    );
  if (fresh.length > 0) {
    console.error(
      `${fresh.length} block(s) of ${MIN_LINES}+ lines repeated between two adapter packages:\n` +
        fresh.map((c) => `  ${c.where} (${c.lines} lines)\n    key: ${c.key}`).join("\n") +
        "\nMove the shared code into @agentsvc/adapter-kit (or markdown / webhook-kit) and use it from both.",
    );
    process.exit(1);
  }
  console.log(`adapter clones: none new between ${dirs.length} adapter packages`);
}
