// What the project's entries need from the machine that `check` can see before `start` does:
// the gateway adapter packages and the environment variables the entries name.
import {
  type BuildError,
  type BuildWarning,
  DEFAULT_TRANSCRIPTION_MODEL,
  type MediaConfig,
  missingAdapters,
  modelKeyVars,
  type Project,
} from "@agentsvc/config-schema";

/** One warning per `*EnvVar` key of a gateway or exposure entry (or the metrics block) whose variable is unset or empty. */
export function unsetEntryVars(project: Project, env: Record<string, string | undefined>): BuildWarning[] {
  const out: BuildWarning[] = [];
  for (const entry of [...project.exposures, ...project.channels, ...project.pushGateways]) {
    for (const [key, name] of Object.entries(entry)) {
      if (!key.endsWith("EnvVar") || typeof name !== "string" || env[name]) continue;
      out.push({
        file: entry.file,
        path: key,
        message: `environment variable ${name} is not set: the entry reads it when \`agentsvc start\` starts`,
      });
    }
    // media.transcribe: the transcription model's key (start fails without it, naming the entry).
    const media = (entry as { media?: MediaConfig }).media;
    if (media?.transcribe) {
      const model = media.transcriptionModel ?? DEFAULT_TRANSCRIPTION_MODEL;
      for (const name of modelKeyVars(model, env)) {
        if (env[name]) continue;
        out.push({
          file: entry.file,
          path: "media.transcriptionModel",
          message: `environment variable ${name} is not set: \`agentsvc start\` fails until it holds the key of the transcription model "${typeof model === "string" ? model : model.model}"`,
        });
      }
    }
  }
  // The metrics block's key: start refuses an unset one, as it does an entry's.
  const metricsVar = project.config.metrics?.apiKeyEnvVar;
  if (metricsVar && !env[metricsVar])
    out.push({
      file: project.configFile ?? "agentsvc.config",
      path: "metrics.apiKeyEnvVar",
      message: `environment variable ${metricsVar} is not set: \`agentsvc start\` refuses to serve metrics without its key`,
    });
  return out;
}

/**
 * Every gateway entry whose adapter package is not installed, as errors, and the one command that
 * installs them all (without loading the server or any adapter).
 */
export async function missingAdapterErrors(
  project: Project,
): Promise<{ errors: BuildError[]; install?: string }> {
  const needs = [...project.channels, ...project.pushGateways].some((e) => e.type !== "cli");
  if (!needs) return { errors: [] };
  const missing = missingAdapters(project);
  const errors = missing.entries.map((e) => ({
    file: e.file,
    path: "type",
    message: `gateway type "${e.type}" needs the package ${e.pkg}, which is not installed`,
  }));
  return missing.install ? { errors, install: missing.install } : { errors };
}
