import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "twilio",
  kind: "webhook",
  account: "bot",
  secrets: ["accountSidEnvVar", "authTokenEnvVar", "fromEnvVar"],
  title: "Twilio Programmable Messaging (SMS, MMS, WhatsApp)",
};

// The light entry (`@agentsvc/gateway-twilio/adapter`): what check and doctor import, without the
// gateway (start loads `createGateway` from the main entry).
export { doctor } from "./doctor.js";
export { entrySchema } from "./schema.js";
