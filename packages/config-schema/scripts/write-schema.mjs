// Runs after tsc: writes the JSON Schema of gateway entries (for editors) from the built valibot schemas.
import { mkdirSync, writeFileSync } from "node:fs";
import { gatewayEntryJsonSchema } from "../dist/index.js";

const out = new URL("../schema/gateway-entry.schema.json", import.meta.url);
mkdirSync(new URL("../schema/", import.meta.url), { recursive: true });
writeFileSync(out, `${JSON.stringify(gatewayEntryJsonSchema(), null, 2)}\n`);
