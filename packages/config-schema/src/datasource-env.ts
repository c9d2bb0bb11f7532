import type { BuildWarning } from "./issues.js";
import type { Datasource, PostgresDatasource, Project } from "./types.js";

export function isPostgresDatasource(ds: Datasource | undefined): ds is PostgresDatasource {
  return ds?.type === "postgres";
}

/**
 * The message for a postgres datasource whose connection-string variable is unset, as `start`
 * reports it (`check` reports it as a warning): names the variable and the datasource.
 */
export function datasourceUrlUnset(name: string, ds: PostgresDatasource): string {
  return `environment variable ${ds.urlEnvVar} is not set (the postgres datasource "${name}" needs its connection string there: postgres://user:password@host:port/database)`;
}

/**
 * One warning per postgres datasource whose `urlEnvVar` is unset in `env`: `check` runs where the
 * secret may legitimately be absent (a laptop, CI), but `start` fails on it, so say so now.
 */
export function missingDatasourceEnv(
  project: Project,
  env: Record<string, string | undefined>,
): BuildWarning[] {
  const out: BuildWarning[] = [];
  for (const [name, ds] of Object.entries(project.config.datasources)) {
    if (!isPostgresDatasource(ds) || env[ds.urlEnvVar]) continue;
    out.push({
      file: project.configFile ?? "agentsvc.config",
      path: `datasources.${name}.urlEnvVar`,
      message: `environment variable ${ds.urlEnvVar} is not set: \`agentsvc start\` fails until it holds the connection string of the postgres datasource "${name}" (postgres://user:password@host:port/database)`,
    });
  }
  return out;
}
