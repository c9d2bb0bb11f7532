import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "mattermost",
  kind: "connection",
  account: "bot",
  secrets: ["tokenEnvVar"],
  title: "Mattermost (WebSocket events, REST posts)",
};
