// drizzle-orm's node-postgres driver and pg through their CommonJS builds, as chat-store's src/orm.ts does. Node's ESM
// resolver re-reads a package's package.json for every module file it loads, and drizzle's is
// 180 KB: its ESM files cost ~150 MiB of transient heap and keep the process ~200 MiB larger after
// start-up. The CommonJS build is the same code (same version, same types) and loads with a cached
// package scope. `pg` is CommonJS itself; requiring it here keeps one instance with drizzle's.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** `drizzle-orm/node-postgres`, loaded when the first pool is connected. */
export const loadDrizzlePg = () =>
  require("drizzle-orm/node-postgres") as typeof import("drizzle-orm/node-postgres");

/** node-postgres, loaded when the first pool is connected. */
export const loadPg = () => require("pg") as typeof import("pg");
