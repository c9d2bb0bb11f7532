import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "slack",
  kind: "connection",
  account: "bot",
  secrets: ["botTokenEnvVar", "appTokenEnvVar"],
  title: "Slack Socket Mode and Web API",
};
