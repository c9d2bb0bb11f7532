// Keeps each package's tsconfig.build.json `references` equal to its workspace dependencies (the
// ones that have a tsconfig.build.json), and the root tsconfig.build.json referencing every package,
// so one `tsc -b tsconfig.build.json` writes all declaration files in dependency order in a single
// process. `pnpm types` (part of `pnpm build`) runs it first, so a dependency added to a package.json
// is followed at once (commit the tsconfig it rewrites); `--check` (in `pnpm lint`) only reports stale
// files (exit 1).
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const CONFIG = "tsconfig.build.json";

/** Package folders of the workspace (pnpm-workspace.yaml's `packages`) holding a tsconfig.build.json, by package name. */
function projects() {
  const globs = [];
  let inPackages = false;
  for (const line of readFileSync(join(root, "pnpm-workspace.yaml"), "utf8").split("\n")) {
    if (/^\S/.test(line)) inPackages = line.startsWith("packages:");
    const glob = inPackages ? /^\s+-\s+(\S+)\s*$/.exec(line)?.[1] : undefined;
    if (glob) globs.push(glob);
  }
  const dirs = globs.flatMap((glob) => {
    if (!glob.endsWith("/*")) return [join(root, glob)];
    const parent = join(root, glob.slice(0, -2));
    return readdirSync(parent).map((name) => join(parent, name));
  });
  const byName = new Map();
  for (const dir of dirs.sort()) {
    if (existsSync(join(dir, CONFIG))) {
      byName.set(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name, dir);
    }
  }
  return byName;
}

function referencesOf(dir, byName) {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const names = new Set(
    [pkg.dependencies, pkg.devDependencies, pkg.peerDependencies].flatMap((deps) => Object.keys(deps ?? {})),
  );
  return [...names]
    .filter((name) => byName.has(name))
    .sort()
    .map((name) => ({ path: `${relative(dir, byName.get(name))}/${CONFIG}` }));
}

/** The file's text with `references` set; null when it already has them. */
function withReferences(file, references) {
  const text = readFileSync(file, "utf8");
  const config = JSON.parse(text);
  if (JSON.stringify(config.references ?? []) === JSON.stringify(references)) return null;
  config.references = references;
  if (references.length === 0) delete config.references;
  return `${JSON.stringify(config, null, 2)}\n`;
}

const check = process.argv.includes("--check");
const byName = projects();
const wanted = new Map([...byName.values()].map((dir) => [join(dir, CONFIG), referencesOf(dir, byName)]));
wanted.set(
  join(root, CONFIG),
  [...byName.values()].map((dir) => ({ path: `./${relative(root, dir)}/${CONFIG}` })),
);
const stale = [];
for (const [file, references] of wanted) {
  const text = withReferences(file, references);
  if (text === null) continue;
  stale.push(relative(root, file));
  if (!check) writeFileSync(file, text);
}
if (!check && stale.length > 0) {
  console.log(`tsconfig references follow package.json (commit them):\n  ${stale.join("\n  ")}`);
}
if (check && stale.length > 0) {
  console.error(
    `tsconfig references out of date (run node tooling/build/references.mjs):\n  ${stale.join("\n  ")}`,
  );
  process.exit(1);
}
