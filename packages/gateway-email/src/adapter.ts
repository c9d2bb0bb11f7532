import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "email",
  kind: "connection",
  account: "bot",
  secrets: ["imapHostEnvVar", "imapUsernameEnvVar", "imapPasswordEnvVar", "fromAddressEnvVar"],
  title: "E-mail (IMAP poll in, SMTP out)",
};

// The light entry (`@agentsvc/gateway-email/adapter`): what check and doctor import, without the
// gateway (start loads `createGateway` from the main entry).
export { doctor } from "./doctor.js";
export { scheduleTarget } from "./schedule-target.js";
export { entrySchema } from "./schema.js";
