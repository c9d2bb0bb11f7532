import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "discord",
  kind: "connection",
  account: "bot",
  secrets: ["botTokenEnvVar"],
  title: "Discord Gateway (WebSocket) and REST API",
};
