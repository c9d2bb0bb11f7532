// Bundles the `agentsvc` command (dist/main.js and everything it loads) into dist/bundle/ with
// esbuild, after the package's own JavaScript is emitted. A start used to load ~460 module files (the
// ESM loader resolved, read and linked each one, which was most of a cold start); the bundle loads a handful. Code a command
// loads lazily (the chat page, pino-pretty, the gateway-cli adapter) stays lazy: dynamic imports
// become chunks of their own.
//
// agent-core and mcp, which a project's own files import, are bundled too (~50 module files loaded as
// a few chunks), with an entry each (agent-core.js, mcp.js): the bin points a project file's import
// of either to that entry when it resolves to the very package this one depends on
// (bin/shared-packages.js), so the service and the project's agents share one copy.
// hono is bundled as well (31 module files loaded at start otherwise). A package loaded from the
// project that builds with its own hono keeps it: the http gateway's adapter returns a Hono app the
// service mounts, which Hono's route() takes by shape (its routes and error handler), and hono
// checks errors by shape too (the install test's http row runs it).
// External, resolved from this package at run time (so each is a dependency of @agentsvc/cli):
// - valibot, which a project's files import too (one file; one copy shared with them);
// - better-sqlite3 (native, loaded by chat-store through a dynamic import), and jiti, a large
//   loader only used when Node cannot load an agent file;
// - the PostgreSQL store and cluster packages (with their `pg` driver): a project on PostgreSQL
//   installs them itself (chat-store and the server import them only for a postgres datasource);
// - @opentelemetry/api, whose global tracer provider the bundled service and a project's own
//   tracing code must share (the trace SDK itself is bundled into chunks loaded only when tracing is on).
// drizzle-orm is bundled: chat-store loads its CommonJS build through createRequire (orm.ts says
// why), which esbuild cannot follow, so the plugin below hands those require() calls to esbuild.
// drizzle-orm's relations.cjs (which its SQLite dialect loads) requires the whole PostgreSQL column
// set (pg-core, ~100 modules, a 248 KB chunk) for one class it compares against only when relational
// queries are configured, and compares with drizzle's is(), which matches by the class's entity kind
// name. The plugin below puts a class of that kind name in its place, so a SQLite start neither
// loads nor evaluates pg-core (a PostgreSQL store loads it with its own tables).
// A CommonJS package loaded by a dynamic import (prom-client, pino-pretty) gets a facade that
// exports module.exports' keys by name, as Node does: esbuild alone makes such a chunk with only a
// default export, so `(await import("prom-client")).Registry` was undefined in the bundle.
// The library entry (dist/index.js) is not bundled.
import { readFile, rename, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
// The packages bundled with an entry of their own, where the bin finds them.
import { SHARED } from "../bin/shared-packages.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const EXTERNAL = [
  "valibot",
  "better-sqlite3",
  "jiti",
  "@agentsvc/store-postgres",
  "@agentsvc/pg-cluster",
  "@opentelemetry/api",
];

// The transpiler may rename the binding (esbuild writes `require2`, keeping `require` free).
const CREATE_REQUIRE = /const (require\d*) = createRequire\(import\.meta\.url\);/;

/** chat-store's and store-schema's drizzle loaders without their createRequire: their require("drizzle-orm...") calls get bundled. */
const bundleDrizzle = {
  name: "bundle-drizzle",
  setup(build) {
    // chat-store's orm.js and store-schema's table files (sqlite-orm.js, postgres-orm.js) load drizzle so.
    const filter = /[\\/](chat-store[\\/]dist[\\/]orm|store-schema[\\/]dist[\\/](sqlite|postgres)-orm)\.js$/;
    build.onLoad({ filter }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const binding = CREATE_REQUIRE.exec(source)?.[1];
      if (!binding) {
        throw new Error(`${args.path}: expected a match of ${CREATE_REQUIRE} (see scripts/bundle.mjs)`);
      }
      const calls = new RegExp(`\\b${binding}\\(`, "g");
      return { contents: source.replace(CREATE_REQUIRE, "").replace(calls, "require("), loader: "js" };
    });
  },
};

// The exact lines in drizzle-orm's relations.cjs and pg-core/primary-keys.cjs; the build fails if a
// drizzle update changes them.
const PG_PRIMARY_KEYS = 'var import_primary_keys = require("./pg-core/primary-keys.cjs");';
const PG_PRIMARY_KEY_KIND = 'static [import_entity.entityKind] = "PgPrimaryKeyBuilder";';

/** drizzle-orm/relations.cjs compares with a stand-in of pg-core's PrimaryKeyBuilder, not pg-core's. */
const drizzlePgPrimaryKeyKind = {
  name: "drizzle-pg-primary-key-kind",
  setup(build) {
    build.onLoad({ filter: /[\\/]drizzle-orm[\\/]relations\.cjs$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const pgKeys = await readFile(join(dirname(args.path), "pg-core", "primary-keys.cjs"), "utf8");
      if (!source.includes(PG_PRIMARY_KEYS) || !pgKeys.includes(PG_PRIMARY_KEY_KIND)) {
        throw new Error(
          `${args.path}: expected the line ${PG_PRIMARY_KEYS}, and ${PG_PRIMARY_KEY_KIND} in pg-core/primary-keys.cjs (see scripts/bundle.mjs)`,
        );
      }
      // is(value, type) is true when value's class chain has type's entity kind: the same answers.
      const standIn = `var import_primary_keys = { PrimaryKeyBuilder: class { ${PG_PRIMARY_KEY_KIND} } };`;
      return { contents: source.replace(PG_PRIMARY_KEYS, standIn), loader: "js" };
    });
  },
};

/** How esbuild reads a file: "cjs" or "esm" (a package's `module` build is ESM inside a CommonJS package). */
async function formatOf(path) {
  const probe = await esbuild.build({
    entryPoints: [path],
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const entry = Object.values(probe.metafile.outputs).find((out) => out.entryPoint)?.entryPoint;
  return entry ? probe.metafile.inputs[entry]?.format : undefined;
}

/** `await import("<commonjs package>")` yields its named exports in the bundle, as under Node. */
const commonJsFacade = {
  name: "commonjs-facade",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      // build.resolve runs this callback again: the marker ends that round.
      if (args.kind !== "dynamic-import" || args.pluginData === commonJsFacade) return undefined;
      const found = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: commonJsFacade,
      });
      if (found.errors.length > 0 || found.external || (await formatOf(found.path)) !== "cjs")
        return undefined;
      return { path: found.path, namespace: "commonjs-facade" };
    });
    build.onLoad({ filter: /.*/, namespace: "commonjs-facade" }, (args) => {
      // Node names a CommonJS module's exports by reading its source; its keys after loading are
      // the same names for the packages loaded here (and loading one at build time does nothing).
      const names = Object.keys(createRequire(args.path)(args.path)).filter((name) => name !== "default");
      const target = JSON.stringify(args.path);
      const lines = [`import cjs from ${target};`, "export default cjs;"];
      names.forEach((name, i) => {
        lines.push(
          `const e${i} = cjs[${JSON.stringify(name)}];`,
          `export { e${i} as ${JSON.stringify(name)} };`,
        );
      });
      return { contents: lines.join("\n"), resolveDir: dirname(args.path), loader: "js" };
    });
  },
};

const fromCli = createRequire(join(root, "package.json"));

// Built beside dist/bundle and swapped in by two renames: a bin started from this tree while it
// builds (a test run beside a build) finds the whole old bundle or the whole new one, never an
// emptied folder.
const outdir = join(root, "dist", "bundle");
const staging = join(root, "dist", `.bundle-next-${process.pid}`);
const previous = join(root, "dist", `.bundle-old-${process.pid}`);
await rm(staging, { recursive: true, force: true });
await esbuild.build({
  entryPoints: [
    join(root, "dist", "main.js"),
    // chat-store starts its SQLite checkpoint thread from the file beside its code: in the bundle,
    // beside the chunks (checkpointer.ts, workerUrl).
    { in: join(root, "..", "chat-store", "dist", "checkpoint-worker.js"), out: "checkpoint-worker" },
    ...Object.entries(SHARED).map(([name, out]) => ({ in: fromCli.resolve(name), out })),
  ],
  outdir: staging,
  // The `// <path>` lines naming each input are relative to this package wherever the script runs.
  absWorkingDir: root,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  // Subpaths too (hono/..., drizzle-orm/...).
  external: EXTERNAL.flatMap((name) => [name, `${name}/*`]),
  // CommonJS dependencies (pino, yaml) call require() for Node built-ins.
  banner: {
    js: 'import { createRequire as __agentsvcRequire } from "node:module";\nconst require = __agentsvcRequire(import.meta.url);',
  },
  plugins: [bundleDrizzle, drizzlePgPrimaryKeyKind, commonJsFacade],
  legalComments: "none",
  logLevel: "warning",
});
await rename(outdir, previous).catch((err) => {
  if (err.code !== "ENOENT") throw err;
});
await rename(staging, outdir);
await rm(previous, { recursive: true, force: true });
