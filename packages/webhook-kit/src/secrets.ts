// Deprecated: session-core's `readSecrets` is the one secrets reader (the options' `env` overrides the
// session's, a missing required secret fails the start). This keeps the old call shape and behaviour
// (every secret optional, an empty one logged) until the adapters that call it have moved over.
import { readSecrets as readSessionSecrets, type GatewayContext } from "@agentsvc/session-core";

/** @deprecated Use `readSecrets` from `@agentsvc/session-core`. */
export function readSecrets<K extends string>(
  context: Pick<GatewayContext, "env" | "logger">,
  names: Record<K, string>,
  env?: Readonly<Record<string, string | undefined>>,
): Record<K, string> {
  const keys = Object.keys(names) as K[];
  const out = readSessionSecrets(context, names, { ...(env ? { env } : {}), optional: keys });
  for (const key of keys) {
    if (out[key] === "")
      context.logger.warn(
        { envVar: names[key] },
        `${names[key]} is empty: the gateway cannot work until it is set`,
      );
  }
  return out;
}
