// `agentsvc start` runs the command bundled as one CommonJS script (dist/bundle/main.cjs, made by
// scripts/bundle.mjs) through vm.Script, with a code cache made AFTER the service ran: V8's
// createCachedData() then holds every function compiled so far. Node's compile cache keeps only
// what V8 compiles before running (top-level code), so every function a start calls was compiled
// again at each start (~25% of the main thread, #45.1). The cache sits in Node's compile cache
// folder (os.tmpdir()/node-compile-cache, NODE_COMPILE_CACHE; its name carries Node's version and
// V8's flags), named by the install's path and the script's content hash; it is written once, when
// the started service is first idle, only when none was valid. A missing, rejected or corrupt cache
// only means compiling.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import module, { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { debuglog } from "node:util";
import vm from "node:vm";
import { crc32 } from "node:zlib";

const debug = debuglog("agentsvc");
const BUNDLE = new URL("../dist/bundle/", import.meta.url);
const SCRIPT = fileURLToPath(new URL("main.cjs", BUNDLE));
// The first line of main.cjs: `// agentsvc script <content hash>`.
const HASH_LINE = /^\/\/ agentsvc script ([0-9a-f]+)\n/;
// Dynamic import() in the script, as in the ES module bundle: Node's own loader, from the script's
// file. Node flags the constant experimental and warns at the first import(); that warning is
// kept quiet, the rest pass.
const IMPORTS = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
// Packages the script requires that a project's files import as ES modules: the same module
// (valibot's CommonJS build would be a second copy beside the project's).
const AS_MODULES = new Set(["valibot", "@opentelemetry/api"]);

/** The cached code, when the file holds a whole one (a 4-byte CRC32 of the code, then the code). */
function readCache(file) {
  let data;
  try {
    data = readFileSync(file);
  } catch {
    return undefined;
  }
  if (data.length > 4 && data.readUInt32LE(0) === crc32(data.subarray(4))) return data.subarray(4);
  debug("code cache %s: corrupt, compiling", file);
  return undefined;
}

/**
 * Writes the cache beside any other start's: a temporary file renamed over it. Then removes the
 * caches of earlier builds installed at this same path (`<prefix>-<other hash>.bin`): stale for good.
 */
function writeCache(file, prefix, code) {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    const crc = Buffer.alloc(4);
    crc.writeUInt32LE(crc32(code));
    writeFileSync(temp, Buffer.concat([crc, code]));
    renameSync(temp, file);
    debug("code cache %s: written (%d bytes)", file, code.length);
    for (const name of readdirSync(dirname(file))) {
      if (name.startsWith(`${prefix}-`) && name.endsWith(".bin") && join(dirname(file), name) !== file)
        rmSync(join(dirname(file), name), { force: true });
    }
  } catch (err) {
    rmSync(temp, { force: true });
    debug("code cache %s: not written (%s)", file, err.message);
  }
}

function quietImportWarning() {
  const emit = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    if (typeof warning === "string" && warning.startsWith("vm.USE_MAIN_CONTEXT_DEFAULT_LOADER")) return;
    return emit.call(this, warning, ...rest);
  };
}

let loaded;

/** The script's copy of a shared package (bin/shared-packages.js): its facade in dist/bundle/ reads it. */
export function sharedModule(name) {
  return loaded.shared[name]();
}

/**
 * Runs main.cjs. Returns its exports ({ main, shared }) and `whenIdle`, which writes the cache
 * when none was valid; or undefined when the script cannot run here (Node's compile cache off:
 * the ES module bundle then loads less to compile; no main.cjs; no default loader for import()).
 */
export function loadScriptBundle() {
  // Node's compile cache folder, undefined when it is off.
  const dir = module.getCompileCacheDir?.();
  if (IMPORTS === undefined || !dir) return undefined;
  let source;
  try {
    // ASCII only (scripts/bundle.mjs escapes the rest): a one-byte string, read faster than UTF-8.
    source = readFileSync(SCRIPT, "latin1");
  } catch {
    return undefined;
  }
  const hash = HASH_LINE.exec(source)?.[1];
  if (!hash) return undefined;
  // One install's caches share a prefix (its path's CRC32), so a new build's write removes the old.
  const prefix = `agentsvc-script-${crc32(SCRIPT).toString(16)}`;
  const file = join(dir, `${prefix}-${hash}.bin`);
  const cachedData = readCache(file);
  const script = new vm.Script(source, { filename: SCRIPT, cachedData, importModuleDynamically: IMPORTS });
  const valid = cachedData !== undefined && !script.cachedDataRejected;
  debug("code cache %s: %s", file, valid ? "used" : cachedData ? "rejected" : "none");
  quietImportWarning();
  const fromScript = createRequire(SCRIPT);
  // Resolved once each: the script requires valibot from every file that imports it (~20 times),
  // and import.meta.resolve() walks the package's exports every time.
  const asModules = new Map();
  const asModule = (id) => {
    if (!asModules.has(id)) asModules.set(id, fromScript(fileURLToPath(import.meta.resolve(id))));
    return asModules.get(id);
  };
  const require = Object.assign((id) => (AS_MODULES.has(id) ? asModule(id) : fromScript(id)), {
    resolve: fromScript.resolve,
    cache: fromScript.cache,
  });
  const mod = { exports: {} };
  // The script's import.meta.url (scripts/bundle.mjs defines it so): its own file's URL.
  script.runInThisContext()(
    mod.exports,
    require,
    mod,
    SCRIPT,
    dirname(SCRIPT),
    new URL("main.cjs", BUNDLE).href,
  );
  loaded = mod.exports;
  let written = valid;
  const whenIdle = () => {
    if (written) return;
    written = true;
    writeCache(file, prefix, script.createCachedData());
  };
  return { ...mod.exports, whenIdle };
}
