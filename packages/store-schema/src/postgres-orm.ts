// drizzle's pg-core through its CommonJS build, as store-postgres loads drizzle (see its src/orm.ts),
// so these tables and the node-postgres driver share one drizzle instance.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export const { bigint, boolean, customType, index, pgTable, primaryKey, text, unique } =
  require("drizzle-orm/pg-core") as typeof import("drizzle-orm/pg-core");

// Index predicates (partial indexes), from the same drizzle instance.
export const { sql } = require("drizzle-orm") as typeof import("drizzle-orm");
