// Module hooks for the child-process tests: run the workspace's TypeScript sources directly (Node's
// own type transform), mapping `@agentsvc/<pkg>` to `packages/<pkg>/src/index.ts` and `./x.js` to
// `./x.ts` when only the source exists. Keeps the restart test independent of built dist/ folders.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve as resolvePath } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const packagesDir = resolvePath(dirname(fileURLToPath(import.meta.url)), "../../..");

export async function resolve(specifier, context, next) {
  const m = /^@agentsvc\/([^/]+)(?:\/(.+))?$/.exec(specifier);
  if (m) {
    const manifest = JSON.parse(readFileSync(join(packagesDir, m[1], "package.json"), "utf8"));
    const entry = manifest.exports?.[m[2] ? `./${m[2]}` : "."];
    if (entry?.source)
      return { url: pathToFileURL(join(packagesDir, m[1], entry.source)).href, shortCircuit: true };
  }
  if (
    (specifier.startsWith("./") || specifier.startsWith("../")) &&
    specifier.endsWith(".js") &&
    context.parentURL?.endsWith(".ts")
  ) {
    const asTs = new URL(specifier.replace(/\.js$/, ".ts"), context.parentURL);
    if (existsSync(fileURLToPath(asTs))) return { url: asTs.href, shortCircuit: true };
  }
  return next(specifier, context);
}
