import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "whatsapp",
  kind: "webhook",
  account: "bot",
  secrets: ["accessTokenEnvVar", "phoneNumberIdEnvVar", "appSecretEnvVar", "verifyTokenEnvVar"],
  title: "WhatsApp Business Cloud API",
};

// The light entry (`@agentsvc/gateway-whatsapp/adapter`): what check and doctor import, without the
// gateway (start loads `createGateway` from the main entry).
export { doctor } from "./doctor.js";
export { entrySchema } from "./schema.js";
