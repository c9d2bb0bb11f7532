// drizzle-orm through its CommonJS build. Node's ESM resolver re-reads a package's package.json
// for every module file it loads, and drizzle's is 180 KB: its ~110 ESM files cost ~150 MiB of
// transient heap and keep the process ~200 MiB larger after start-up. The CommonJS build is the
// same code (same version, same types) and loads with a cached package scope.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export const {
  and,
  asc,
  count,
  desc,
  eq,
  getTableColumns,
  gt,
  gte,
  inArray,
  isNotNull,
  isNull,
  lt,
  lte,
  min,
  not,
  sql,
} = require("drizzle-orm") as typeof import("drizzle-orm");

/** `drizzle-orm/better-sqlite3`, loaded when the first store is opened. */
export const loadDrizzleSqlite = () =>
  require("drizzle-orm/better-sqlite3") as typeof import("drizzle-orm/better-sqlite3");
