// node-postgres is CommonJS; it is loaded through `createRequire` (as chat-store loads its drivers)
// so this ESM package gets the real module object, and only when the first link connects.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export type Pg = typeof import("pg");

let pg: Pg | undefined;

/** The `pg` module, loaded on first use. */
export function loadPg(): Pg {
  pg ??= require("pg") as Pg;
  return pg;
}
