// The MCP SDK (and its zod and ajv, ~250 modules) loads on first use, not with this package: a
// project whose agent only defines local tools, or whose MCP route has had no request yet, never
// pays for it at start-up. The SDK's CommonJS build keeps these callers synchronous.
import { createRequire } from "node:module";

// Resolved from this package's own entry, not from this file: the agentsvc command bundles this
// code into @agentsvc/cli's files, whose node_modules do not hold the SDK.
let own: NodeJS.Require | undefined;
const load = (id: string): unknown => {
  own ??= createRequire(createRequire(import.meta.url).resolve("@agentsvc/mcp"));
  return own(id);
};

export const sdkServer = () =>
  load(
    "@modelcontextprotocol/sdk/server/index.js",
  ) as typeof import("@modelcontextprotocol/sdk/server/index.js");
export const sdkTypes = () =>
  load("@modelcontextprotocol/sdk/types.js") as typeof import("@modelcontextprotocol/sdk/types.js");
export const sdkTransport = () =>
  load(
    "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js",
  ) as typeof import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js");
export const sdkAjv = () =>
  load(
    "@modelcontextprotocol/sdk/validation/ajv",
  ) as typeof import("@modelcontextprotocol/sdk/validation/ajv");
