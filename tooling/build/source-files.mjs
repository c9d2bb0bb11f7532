// The .ts files a package's tsconfig.build.json compiles: its `include` folders less its `exclude`
// patterns (the nearest of each along `extends`, `${configDir}` being the package folder), with the
// tsconfig wildcards our configs use (`*`, `**/`). A test compares the result with TypeScript's own
// reading of every package's config.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const CONFIG = "tsconfig.build.json";
const CONFIG_DIR = "$" + "{configDir}"; // tsconfig's placeholder for the folder of the config

/** include and exclude of `file`, each taken from the nearest config along `extends` that sets it. */
function readPatterns(file) {
  const config = JSON.parse(readFileSync(file, "utf8"));
  const inherited = config.extends ? readPatterns(resolve(dirname(file), config.extends)) : {};
  return { include: config.include ?? inherited.include, exclude: config.exclude ?? inherited.exclude };
}

/** A tsconfig path pattern as a regular expression over absolute paths (a folder matches what it holds). */
function patternRegex(pattern) {
  const parts = pattern.split("/");
  if (parts.at(-1) === "**") parts.pop();
  const body = parts
    .map((part, i) => {
      if (part === "**") return "(?:[^/]+/)*";
      const literal = part.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", "[^/]*");
      return i < parts.length - 1 ? `${literal}/` : literal;
    })
    .join("");
  return new RegExp(`^${body}(?:/.*)?$`);
}

function walk(path, out) {
  if (!existsSync(path)) return out;
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) walk(join(path, name), out);
  } else if (path.endsWith(".ts") && !path.endsWith(".d.ts")) {
    out.push(path);
  }
  return out;
}

/** Absolute paths of the files `<dir>/tsconfig.build.json` compiles, sorted. */
export function sourceFiles(dir) {
  const { include = [], exclude = [] } = readPatterns(join(dir, CONFIG));
  const at = (pattern) => resolve(dir, pattern.replaceAll(CONFIG_DIR, dir));
  const excluded = exclude.map((pattern) => patternRegex(at(pattern)));
  const files = include.flatMap((pattern) => walk(at(pattern), []));
  return [...new Set(files)].filter((file) => !excluded.some((regex) => regex.test(file))).sort();
}
