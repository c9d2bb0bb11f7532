// The MCP SDK (and its zod and ajv, ~250 modules) loads on first use, not with this package: a
// project whose agent only defines local tools, or whose MCP route has had no request yet, never
// pays for it at start-up. The SDK's CommonJS build keeps these callers synchronous.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export const sdkServer = () =>
  require("@modelcontextprotocol/sdk/server/index.js") as typeof import("@modelcontextprotocol/sdk/server/index.js");
export const sdkTypes = () =>
  require("@modelcontextprotocol/sdk/types.js") as typeof import("@modelcontextprotocol/sdk/types.js");
export const sdkTransport = () =>
  require("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js") as typeof import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js");
export const sdkAjv = () =>
  require("@modelcontextprotocol/sdk/validation/ajv") as typeof import("@modelcontextprotocol/sdk/validation/ajv");
