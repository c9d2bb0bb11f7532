import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "email",
  kind: "connection",
  account: "bot",
  secrets: ["imapHostEnvVar", "imapUsernameEnvVar", "imapPasswordEnvVar", "fromAddressEnvVar"],
  title: "E-mail (IMAP poll in, SMTP out)",
};
