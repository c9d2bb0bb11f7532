// Every API key a project names fails closed: a route or /metrics whose `apiKeyEnvVar` variable is
// unset or empty would otherwise take any caller (an empty key matches an empty header).
import type { Project } from "@agentsvc/config-schema";

/**
 * Throws, naming the file, the key and the variable, when an agent exposure or the `metrics` block
 * names an `apiKeyEnvVar` whose variable is unset or empty (the chat page and MCP refuse the same).
 */
export function requireApiKeys(project: Project, env: NodeJS.ProcessEnv): void {
  const named: { where: string; envVar: string }[] = [];
  for (const e of project.exposures)
    if (e.exposes === "agent" && e.apiKeyEnvVar)
      named.push({ where: `${e.file}: apiKeyEnvVar`, envVar: e.apiKeyEnvVar });
  const metricsVar = project.config.metrics?.apiKeyEnvVar;
  if (metricsVar)
    named.push({
      where: `${project.configFile ?? "agentsvc.config"}: metrics.apiKeyEnvVar`,
      envVar: metricsVar,
    });
  for (const { where, envVar } of named) {
    if (env[envVar]) continue;
    throw Object.assign(
      new Error(
        `${where}: expected environment variable ${envVar} to hold the API key, but it is unset or empty (refusing to start with the route open)`,
      ),
      { code: "api_key_unset" },
    );
  }
}
