// agent-core and mcp are bundled into dist/bundle/ (scripts/bundle.mjs), and a project's agents
// and tool servers import them too. A project's import that resolves to the very package files
// this command depends on is given the bundle's entry for it instead, so the service and the
// project share one copy (one AgentsvcError, one set of registries) loaded as a few chunks rather
// than ~50 module files. An import that resolves to another copy (a project with its own, other
// version) keeps it, as Node alone would.
import module from "node:module";

// Package name -> its entry in dist/bundle/ (scripts/bundle.mjs makes one per package).
export const SHARED = { "@agentsvc/agent-core": "agent-core", "@agentsvc/mcp": "mcp" };

/**
 * The URL each shared package resolves to from here -> its bundled entry's URL. Under the script
 * bundle (script-bundle.js) the entry is its facade, `shared-<file>.js`, which exports the script's
 * copy; the ES module bundle's own entry is sent there too, so one copy is loaded whichever a
 * project names.
 */
function sharedEntries(script) {
  const entry = (file) => new URL(`../dist/bundle/${file}.js`, import.meta.url).href;
  return new Map(
    Object.entries(SHARED).flatMap(([name, file]) =>
      script
        ? [
            [import.meta.resolve(name), entry(`shared-${file}`)],
            [entry(file), entry(`shared-${file}`)],
          ]
        : [[import.meta.resolve(name), entry(file)]],
    ),
  );
}

const BUNDLE = new URL("../dist/bundle/", import.meta.url).href;

/**
 * A resolve hook (module.registerHooks' or module.register's: `next` may give a promise). The
 * bundle's own lookups are left alone: agent-core and mcp find their dependencies from their real
 * folders (provider-package.ts, sdk.ts).
 */
export function redirectTo(entries, bundle = BUNDLE) {
  const swap = (found) => {
    const entry = entries.get(found.url);
    return entry ? { ...found, url: entry } : found;
  };
  return (specifier, context, next) => {
    const found = next(specifier, context);
    if (context.parentURL?.startsWith(bundle)) return found;
    return typeof found?.then === "function" ? found.then(swap) : swap(found);
  };
}

// module.register's hooks run on a thread of their own: they get the table as data.
let registered;
export function initialize(entries) {
  registered = redirectTo(new Map(entries));
}
export function resolve(specifier, context, next) {
  return registered(specifier, context, next);
}

/**
 * Installs the redirect for this process: in-thread where Node has registerHooks (>= 22.15).
 * `script`: the command runs as the script bundle.
 */
export function shareBundledPackages(script = false) {
  const entries = sharedEntries(script);
  if (module.registerHooks) module.registerHooks({ resolve: redirectTo(entries) });
  else module.register(import.meta.url, { data: [...entries] });
}
