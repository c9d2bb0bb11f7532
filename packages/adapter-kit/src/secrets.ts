// The one secrets reader of every adapter. An entry names environment variables; the values are read
// at start. Precedence: the adapter options' `env` (what the server hands the factory) overrides the
// session's `context.env`. A required secret that is missing or empty fails the start with a
// MissingConfigError naming the variable; an optional one reads as "", and so does one whose entry
// key is unset (a feature left off, e.g. approval buttons without their secret).
import { AgentsvcError } from "@agentsvc/agent-core";
import type { GatewayContext } from "./gateway.js";

/** A required secret is not set: thrown from `start`, naming the variable to set. */
export class MissingConfigError extends AgentsvcError {
  declare readonly code: "missing_config";
  readonly envVar: string;

  constructor(envVar: string, message: string) {
    super("missing_config", message, 500);
    this.name = "MissingConfigError";
    this.envVar = envVar;
  }
}

export interface ReadSecretsOptions<K extends string> {
  /** The adapter options' `env`; a value here wins over `context.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Keys that may be unset (read as ""). Every other key is required. */
  optional?: readonly NoInfer<K>[];
  /** The gateway type, for the error message (`telegram`). */
  gateway?: string;
  /** What each secret is, for the error message (`the bot token from @BotFather`). */
  describe?: Partial<Record<NoInfer<K>, string>>;
}

export function readSecrets<K extends string>(
  context: Pick<GatewayContext, "env" | "logger">,
  names: Record<K, string | undefined>,
  o: ReadSecretsOptions<K> = {},
): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const [key, envVar] of Object.entries(names) as [K, string | undefined][]) {
    if (envVar === undefined) {
      out[key] = "";
      continue;
    }
    // `||`, not `??`: an empty override does not hide a value the session has.
    const value = o.env?.[envVar] || context.env[envVar] || "";
    if (value === "" && !o.optional?.includes(key)) {
      const what = o.describe?.[key] ?? `the ${key} of this gateway`;
      throw new MissingConfigError(
        envVar,
        `${o.gateway ?? "gateway"}: ${envVar} is not set: set it to ${what} (in the environment, or the entry's env)`,
      );
    }
    out[key] = value;
  }
  return out;
}
