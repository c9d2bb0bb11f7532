import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { tempRoot } from "./helpers.js";

const pkg = resolve(import.meta.dirname, "..");

// A fresh process importing the built package (dist/: `pnpm build` runs before the tests, as for
// restart.test.ts) answers which module files of better-sqlite3 Node has loaded, before and after
// a SQLite store is opened.
const CHILD = `
import { createRequire } from "node:module";
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => /[\\/]node_modules[\\/]better-sqlite3[\\/]/.test(f));
const { ChatDb } = await import(process.argv[1]);
const atImport = loaded();
ChatDb.open({ appRoot: process.argv[2] }).close();
console.log(JSON.stringify({ atImport, afterOpen: loaded() }));
`;

describe("the SQLite driver", () => {
  it("is loaded at the first SQLite open, not when the package is imported (a PostgreSQL-only project never loads it)", () => {
    const out = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", CHILD, pathToFileURL(join(pkg, "dist/index.js")).href, tempRoot()],
      { encoding: "utf8" },
    );
    expect(JSON.parse(out)).toEqual({ atImport: false, afterOpen: true });
  });
});
