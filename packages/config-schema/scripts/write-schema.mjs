// Runs after tsc: writes the JSON Schema of gateway entries (for editors) from the built valibot schemas.
// A temp file renamed over the old one: an editor or test reading the schema while a build runs
// reads the whole old file or the whole new one.
import { fileURLToPath } from "node:url";
import { writeFileAtomic } from "../../../tooling/build/write-atomic.mjs";
import { gatewayEntryJsonSchema } from "../dist/index.js";

const out = fileURLToPath(new URL("../schema/gateway-entry.schema.json", import.meta.url));
await writeFileAtomic(out, `${JSON.stringify(gatewayEntryJsonSchema(), null, 2)}\n`);
