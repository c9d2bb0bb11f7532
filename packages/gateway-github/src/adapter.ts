import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "github",
  kind: "webhook",
  account: "bot",
  secrets: ["tokenEnvVar", "webhookSecretEnvVar", "botNameEnvVar"],
  title: "GitHub issues and pull requests (webhooks, REST)",
};
