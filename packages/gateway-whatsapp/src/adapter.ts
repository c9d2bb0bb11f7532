import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "whatsapp",
  kind: "webhook",
  account: "bot",
  secrets: ["accessTokenEnvVar", "phoneNumberIdEnvVar", "appSecretEnvVar", "verifyTokenEnvVar"],
  title: "WhatsApp Business Cloud API",
  // Without a media block only a media message's caption is read (the spec's row for WhatsApp).
  unsupportedMedia: "ignore",
};

// The light entry (`@agentsvc/gateway-whatsapp/adapter`): what check and doctor import, without the
// gateway (start loads `createGateway` from the main entry).
export { doctor } from "./doctor.js";
export { scheduleTarget } from "./schedule-target.js";
export { entrySchema } from "./schema.js";
