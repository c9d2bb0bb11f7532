// Secrets of a gateway entry: environment variable names in the entry, values read at start from
// the session's environment (the factory's `env` as a fallback), missing = "" and logged once.
import type { GatewayContext } from "@agentsvc/session-core";

export function readSecrets<K extends string>(
  context: Pick<GatewayContext, "env" | "logger">,
  names: Record<K, string>,
  fallback?: Readonly<Record<string, string | undefined>>,
): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const [key, envVar] of Object.entries(names) as [K, string][]) {
    const value = context.env[envVar] ?? fallback?.[envVar] ?? "";
    if (value === "")
      context.logger.warn({ envVar }, `${envVar} is empty: the gateway cannot work until it is set`);
    out[key] = value;
  }
  return out;
}
