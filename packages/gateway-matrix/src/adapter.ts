import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "matrix",
  kind: "connection",
  account: "bot",
  secrets: ["accessTokenEnvVar"],
  title: "Matrix client-server API (/sync long-poll)",
};
