import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "mattermost",
  kind: "connection",
  account: "bot",
  secrets: ["tokenEnvVar"],
  title: "Mattermost (WebSocket events, REST posts)",
};

// The light entry (`@agentsvc/gateway-mattermost/adapter`): what check and doctor import, without the
// gateway (start loads `createGateway` from the main entry).
export { doctor } from "./doctor.js";
export { entrySchema } from "./schema.js";
