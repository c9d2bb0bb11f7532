// drizzle's sqlite-core through its CommonJS build, as chat-store loads drizzle (see its src/orm.ts:
// the ESM build costs ~150 MiB of transient heap), so these tables and chat-store's queries share
// one drizzle instance.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export const { blob, index, integer, primaryKey, sqliteTable, text, unique } =
  require("drizzle-orm/sqlite-core") as typeof import("drizzle-orm/sqlite-core");

// Index predicates (partial indexes), from the same drizzle instance.
export const { sql } = require("drizzle-orm") as typeof import("drizzle-orm");
