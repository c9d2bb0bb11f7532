import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "github",
  kind: "webhook",
  account: "bot",
  secrets: ["tokenEnvVar", "webhookSecretEnvVar", "botNameEnvVar"],
  title: "GitHub issues and pull requests (webhooks, REST)",
};

// The light entry (`@agentsvc/gateway-github/adapter`): what check and doctor import, without the
// gateway (start loads `createGateway` from the main entry).
export { doctor } from "./doctor.js";
export { entrySchema } from "./schema.js";
