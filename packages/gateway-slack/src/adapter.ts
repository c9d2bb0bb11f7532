import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "slack",
  kind: "connection",
  account: "bot",
  secrets: ["botTokenEnvVar", "appTokenEnvVar"],
  title: "Slack Socket Mode and Web API",
};

// The light entry (`@agentsvc/gateway-slack/adapter`): what check and doctor import, without the
// gateway (start loads `createGateway` from the main entry).
export { doctor } from "./doctor.js";
export { entrySchema } from "./schema.js";
