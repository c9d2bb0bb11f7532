import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "teams",
  kind: "webhook",
  account: "bot",
  secrets: ["appIdEnvVar", "appPasswordEnvVar"],
  title: "Microsoft Teams (Bot Framework connector)",
};
