import type { AdapterInfo } from "@agentsvc/config-schema/adapter";

/** What agentsvc reads before it starts the gateway (docs/building-an-adapter.md). */
export const adapter: AdapterInfo = {
  type: "signal",
  kind: "connection",
  account: "bot",
  secrets: ["accountEnvVar"],
  title: "Signal through a signal-cli HTTP daemon",
};
