import type { Project } from "@agentsvc/config-schema";

/**
 * A gateway's MissingConfigError names the variable; `start` should also name the entry file and
 * key that point at it (`gateways/tg.yaml: botTokenEnvVar: telegram: TG_TOKEN is not set ...`), as
 * `check` does. Other errors pass through unchanged.
 */
export function namingEntry(error: unknown, project: Project): unknown {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== "missing_config") return error;
  const envVar = (error as { envVar?: unknown }).envVar;
  for (const entry of [...project.channels, ...project.pushGateways, ...project.exposures]) {
    for (const [key, value] of Object.entries(entry)) {
      if (key.endsWith("EnvVar") && value === envVar) {
        error.message = `${entry.file}: ${key}: ${error.message}`;
        return error;
      }
    }
  }
  return error;
}
