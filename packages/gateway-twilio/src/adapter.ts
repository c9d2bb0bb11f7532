import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "twilio",
  kind: "webhook",
  account: "bot",
  secrets: ["accountSidEnvVar", "authTokenEnvVar", "fromEnvVar"],
  title: "Twilio Programmable Messaging (SMS, MMS, WhatsApp)",
};
