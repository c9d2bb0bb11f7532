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
// drizzle-orm is bundled from its ES module build: chat-store and store-schema load its CommonJS
// build through createRequire outside the bundle (orm.ts says why: the ESM files' package.json
// reads), which esbuild cannot follow, so the plugin below turns those require() calls into imports.
// Bundled as CommonJS, drizzle was ~75 module closures evaluated whole at start (325 KB, nothing
// tree-shaken); as ESM it is scope-hoisted and only what chat-store uses is kept (164 KB).
// drizzle-orm's relations.js (which its SQLite dialect loads) imports pg-core's PrimaryKeyBuilder
// (and with it pg-core's tables and columns) for one class it compares against only when relational
// queries are configured, and compares with drizzle's is(), which matches by the class's entity kind
// name. The plugin below puts a class of that kind name in its place, so a SQLite start neither
// loads nor evaluates pg-core (a PostgreSQL store loads it with its own tables).
// A CommonJS package loaded by a dynamic import (prom-client, pino-pretty) gets a facade that
// exports module.exports' keys by name, as Node does: esbuild alone makes such a chunk with only a
// default export, so `(await import("prom-client")).Registry` was undefined in the bundle.
// The library entry (dist/index.js) is not bundled.
import { createHash } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { swapBundle } from "../../../tooling/build/bundle-swap.mjs";
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
const CREATE_IMPORT = 'import { createRequire } from "node:module";';
const CREATE_REQUIRE = /const (require\d*) = createRequire\(import\.meta\.url\);/;

/**
 * chat-store's and store-schema's drizzle loaders with imports of drizzle's ES modules in place of
 * createRequire: `const { a, b } = require("x");` becomes `import { a, b } from "x"`, and any other
 * `require("x")` (a loader function's) a namespace import of "x".
 */
const drizzleAsModules = {
  name: "drizzle-as-modules",
  setup(build) {
    // chat-store's orm.js and store-schema's table files (sqlite-orm.js, postgres-orm.js) load drizzle so.
    const filter = /[\\/](chat-store[\\/]dist[\\/]orm|store-schema[\\/]dist[\\/](sqlite|postgres)-orm)\.js$/;
    build.onLoad({ filter }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const binding = CREATE_REQUIRE.exec(source)?.[1];
      if (!binding || !source.includes(CREATE_IMPORT)) {
        throw new Error(
          `${args.path}: expected ${CREATE_IMPORT} and a match of ${CREATE_REQUIRE} (see scripts/bundle.mjs)`,
        );
      }
      const imports = [];
      const destructured = new RegExp(`const \\{([^}]*)\\} = ${binding}\\(("[^"]+")\\);`, "g");
      const other = new RegExp(`\\b${binding}\\(("[^"]+")\\)`, "g");
      const contents = source
        .replace(CREATE_IMPORT, "")
        .replace(CREATE_REQUIRE, "")
        .replace(destructured, (_all, names, from) => {
          imports.push(`import {${names}} from ${from};`);
          return "";
        })
        .replace(other, (_all, from) => {
          const name = `drizzleModule${imports.length}`;
          imports.push(`import * as ${name} from ${from};`);
          return name;
        });
      if (new RegExp(`\\b${binding}\\b`).test(contents)) {
        throw new Error(
          `${args.path}: a use of ${binding} the plugin does not turn into an import (see scripts/bundle.mjs)`,
        );
      }
      return { contents: `${imports.join("\n")}\n${contents}`, loader: "js" };
    });
  },
};

// The exact lines in drizzle-orm's relations.js, pg-core/primary-keys.js and better-sqlite3/driver.js;
// the build fails if a drizzle update changes them.
const PG_PRIMARY_KEYS = 'import { PrimaryKeyBuilder } from "./pg-core/primary-keys.js";';
const PG_PRIMARY_KEY_KIND = 'static [entityKind] = "PgPrimaryKeyBuilder";';
const SQLITE_CLIENT = 'import Client from "better-sqlite3";';

/** Reads a drizzle file and replaces one exact line of it, or fails the build. */
async function replaceLine(path, line, by, also = () => true) {
  const source = await readFile(path, "utf8");
  if (!source.includes(line) || !(await also())) {
    throw new Error(`${path}: expected the line ${line} (see scripts/bundle.mjs)`);
  }
  return { contents: source.replace(line, by), loader: "js" };
}

/**
 * drizzle-orm/relations.js compares with a stand-in of pg-core's PrimaryKeyBuilder, not pg-core's;
 * drizzle-orm/better-sqlite3/driver.js requires better-sqlite3 only where it makes a connection of
 * its own (chat-store hands it one it opened: driver.ts), so the bundle's static import of the
 * native driver (external) does not fail every start where it is not installed.
 */
const drizzleLines = {
  name: "drizzle-lines",
  setup(build) {
    build.onLoad({ filter: /[\\/]drizzle-orm[\\/]relations\.js$/ }, (args) =>
      replaceLine(
        args.path,
        PG_PRIMARY_KEYS,
        // is(value, type) is true when value's class chain has type's entity kind: the same answers.
        `const PrimaryKeyBuilder = class { ${PG_PRIMARY_KEY_KIND} };`,
        async () =>
          (await readFile(join(dirname(args.path), "pg-core", "primary-keys.js"), "utf8")).includes(
            PG_PRIMARY_KEY_KIND,
          ),
      ),
    );
    build.onLoad({ filter: /[\\/]drizzle-orm[\\/]better-sqlite3[\\/]driver\.js$/ }, (args) =>
      replaceLine(
        args.path,
        SQLITE_CLIENT,
        // `new Client(...)` gets the object the constructor returns (the banner defines `require`).
        'const Client = function (...args) { return new (require("better-sqlite3"))(...args); };',
      ),
    );
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

/**
 * main.cjs: the same command as one CommonJS script, which `agentsvc start` runs through vm.Script
 * with a code cache made after the service ran (bin/script-bundle.js says why). Dynamic imports of
 * bundled code become lazy inits in the one file; import.meta.url is the script's own URL (a
 * parameter of the function the script is); its first line names its content hash (the cache's
 * key). Non-ASCII characters (in comments) are escaped, so the bin reads it as a one-byte string.
 * Beside it, shared-<entry>.js for agent-core and mcp: ES modules exporting the script's copy by
 * the names the ES module bundle's entry exports (a project's imports are sent there).
 */
/**
 * In the script, `import("<pkg>")` of valibot or @opentelemetry/api becomes the script's require()
 * of it (which the bin gives their ES modules, as import() would): the trace SDK's modules require
 * @opentelemetry/api in the same Promise.all as tracing.ts's import() of it, and Node refuses
 * require() of an ES module an import() is still loading.
 */
const importAsRequire = {
  name: "import-as-require",
  setup(build) {
    build.onResolve({ filter: /^(valibot|@opentelemetry\/api)$/ }, (args) =>
      args.kind === "dynamic-import" ? { path: args.path, namespace: "import-as-require" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "import-as-require" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: "js",
    }));
  },
};

// `<binding> = __toESM(require("valibot"), 1);`: esbuild's wrapping of an external package, once
// per file importing it.
const WRAPPED_EXTERNAL = /\b(\w+) = __toESM\(require\("(valibot|@opentelemetry\/api)"\), 1\);/g;

/**
 * In the script, a file's `import * as v from "valibot"` is the module namespace the bin's require()
 * returns (an ES module's), not esbuild's __toESM copy of it: each of the 22 files importing valibot
 * made its own copy, one getter per export (~15,000 getters, ~10 ms of a start, #45.1), and every
 * `v.string()` then went through a getter. __toESM(x, 1) differs from x only by a `default` that is
 * x itself: the build fails if any such binding reads `.default`.
 */
function namespacesAsRequired(code) {
  const bindings = [];
  const out = code.replace(WRAPPED_EXTERNAL, (_all, binding, name) => {
    bindings.push(binding);
    return `${binding} = require(${JSON.stringify(name)});`;
  });
  for (const binding of bindings) {
    if (new RegExp(`\\b${binding}\\.default\\b`).test(out))
      throw new Error(
        `${binding}.default: a default import of an external ES module (see scripts/bundle.mjs)`,
      );
  }
  return out;
}

async function writeScriptBundle(metafile) {
  const sharedLoaders = Object.entries(SHARED).map(
    ([name, out]) => `${JSON.stringify(out)}: () => require(${JSON.stringify(fromCli.resolve(name))})`,
  );
  const built = await esbuild.build({
    stdin: {
      contents: `export { main } from "./dist/main.js";\nexport const shared = { ${sharedLoaders.join(", ")} };\n`,
      resolveDir: root,
      sourcefile: "script-entry.js",
      loader: "js",
    },
    absWorkingDir: root,
    bundle: true,
    write: false,
    outfile: join(staging, "main.cjs"),
    format: "cjs",
    platform: "node",
    target: "node22",
    external: EXTERNAL.flatMap((name) => [name, `${name}/*`]),
    define: { "import.meta.url": "__agentsvcScriptUrl" },
    banner: { js: "(function (exports, require, module, __filename, __dirname, __agentsvcScriptUrl) {" },
    footer: { js: "})" },
    plugins: [importAsRequire, drizzleAsModules, drizzleLines, commonJsFacade],
    legalComments: "none",
    logLevel: "warning",
  });
  const code = namespacesAsRequired(built.outputFiles[0].text).replace(
    /[^\x00-\x7f]/gu,
    (c) => `\\u{${c.codePointAt(0).toString(16)}}`,
  );
  const hash = createHash("sha256").update(code).digest("hex").slice(0, 16);
  await writeFile(join(staging, "main.cjs"), `// agentsvc script ${hash}\n${code}`, "latin1");
  for (const [name, out] of Object.entries(SHARED)) {
    const entry = Object.values(metafile.outputs).find(
      (o) => o.entryPoint && fromCli.resolve(name).endsWith(o.entryPoint.replace(/^(\.\.\/)+/, "")),
    );
    if (!entry) throw new Error(`${name}: no entry in the ES module bundle (see scripts/bundle.mjs)`);
    const names = entry.exports.filter((n) => n !== "default");
    await writeFile(
      join(staging, `shared-${out}.js`),
      [
        `import { sharedModule } from "../../bin/script-bundle.js";`,
        `export const { ${names.join(", ")} } = sharedModule(${JSON.stringify(out)});`,
        "",
      ].join("\n"),
    );
  }
}

// Built beside dist/bundle, then moved in file by file (tooling/build/bundle-swap.mjs): a bin started
// from this tree while it builds (a test run beside a build) finds a whole bundle, and a bin already
// running finds the chunks it imports lazily (chunks are named by their content's hash; the last 3
// builds' stay).
const outdir = join(root, "dist", "bundle");
const staging = join(root, "dist", `.bundle-next-${process.pid}`);
await rm(staging, { recursive: true, force: true });
const esm = await esbuild.build({
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
  plugins: [drizzleAsModules, drizzleLines, commonJsFacade],
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
});
await writeScriptBundle(esm.metafile);
// The files named as they are in every build (the rest are named by their content's hash), the
// ones a bin loads first (main.cjs, main.js) last.
const entries = [
  ...Object.values(SHARED).map((out) => `shared-${out}.js`),
  ...Object.keys(esm.metafile.outputs)
    .filter((out) => esm.metafile.outputs[out].entryPoint)
    .map((out) => basename(out))
    .filter((name) => name !== "main.js"),
  "main.js",
  "main.cjs",
];
await swapBundle(staging, outdir, { entries });
