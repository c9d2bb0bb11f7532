// From a `type: postgres` datasource of the project config to a connected, migrated store.
import { datasourceUrlUnset, type PostgresDatasource } from "@agentsvc/config-schema";
import {
  type ConnectPostgresOptions,
  connectionSettings,
  connectPostgres,
  type PostgresConnectionSettings,
  type PostgresStore,
} from "./connect.js";
import { PostgresStoreError } from "./errors.js";

export interface ConnectDatasourceOptions
  extends Omit<ConnectPostgresOptions, "connectionString" | "datasource" | "urlEnvVar" | "appRoot"> {
  /** The datasource's name in `datasources`. */
  name: string;
  datasource: PostgresDatasource;
  /** Where `urlEnvVar` is read. Default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The project root (a relative `sslCaFile` is resolved against it). */
  appRoot: string;
}

/**
 * Reads the datasource's connection string from its `urlEnvVar` (a clear `env_unset` error when it
 * is unset or empty) and connects with the datasource's pool size, TLS and timeouts (connect,
 * statement, idle). `source` defaults to `agentsvc.config`; explicit options win over the
 * datasource's keys.
 */
export function connectDatasource(options: ConnectDatasourceOptions): Promise<PostgresStore> {
  let opts: ConnectPostgresOptions;
  try {
    opts = datasourceOptions(options);
  } catch (err) {
    return Promise.reject(err);
  }
  return connectPostgres(opts);
}

/**
 * How a connection of its own to the datasource (the cluster link) must be opened: its URL, TLS
 * and connect timeout resolved exactly as connectDatasource's pool resolves them. Throws the same
 * `env_unset` and `invalid_options` errors.
 */
export function datasourceConnection(
  options: Pick<ConnectDatasourceOptions, "name" | "datasource" | "env" | "appRoot" | "source">,
): PostgresConnectionSettings {
  return connectionSettings(datasourceOptions(options));
}

function datasourceOptions(options: ConnectDatasourceOptions): ConnectPostgresOptions {
  const { name, datasource: ds, env = process.env, appRoot, ...rest } = options;
  const source = rest.source ?? "agentsvc.config";
  const url = env[ds.urlEnvVar];
  if (!url) {
    throw new PostgresStoreError(
      "env_unset",
      `${source}: datasources.${name}.urlEnvVar: ${datasourceUrlUnset(name, ds)}`,
    );
  }
  const opts: ConnectPostgresOptions = {
    ...rest,
    max: rest.max ?? ds.pool,
    source,
    connectionString: url,
    datasource: name,
    urlEnvVar: ds.urlEnvVar,
    appRoot,
  };
  if (opts.ssl === undefined && ds.ssl !== undefined) opts.ssl = ds.ssl;
  if (opts.sslCaFile === undefined && ds.sslCaFile !== undefined) opts.sslCaFile = ds.sslCaFile;
  if (opts.applicationName === undefined && ds.applicationName !== undefined)
    opts.applicationName = ds.applicationName;
  if (opts.statementTimeoutMs === undefined && ds.statementTimeoutMs !== undefined) {
    opts.statementTimeoutMs = ds.statementTimeoutMs;
  }
  if (opts.connectTimeoutMs === undefined && ds.connectTimeoutMs !== undefined) {
    opts.connectTimeoutMs = ds.connectTimeoutMs;
  }
  if (opts.idleTimeoutMs === undefined && ds.idleTimeoutMs !== undefined)
    opts.idleTimeoutMs = ds.idleTimeoutMs;
  return opts;
}
