// The cluster link connects as the datasource says: its URL, TLS (ssl, sslCaFile, the URL's sslmode,
// verify-full by default for a host not on loopback) and connect timeout come from store-postgres's
// datasourceConnection, the resolution the store's pool connects with. Before, the link took the bare
// URL: plain TCP to a remote database whose pool verified TLS (thread locks, announcements carrying
// message text), and no certificate check with `ssl: verify-full` + `sslCaFile`.
import type { Datasource } from "@agentsvc/config-schema";
import type { Logger } from "pino";
import { type PgCoordination, pgCoordination } from "./pg-coordination.js";

export interface DatasourceCoordinationOptions {
  /** The primary store's datasource name in `datasources`. */
  name: string;
  datasource: Extract<Datasource, { type: "postgres" }>;
  env: NodeJS.ProcessEnv;
  /** The project root (a relative `sslCaFile` is resolved against it). */
  appRoot: string;
  /** The config file declaring the datasource, for messages. */
  source: string;
  logger: Logger;
}

/**
 * pgCoordination on a link opened with the datasource's connection settings. A link that cannot be
 * opened (certificate refused, server unreachable, sign-in refused) fails the start with an error
 * naming the datasource, the redacted target and the fix, as the pool's first connection does.
 */
export async function datasourceCoordination(
  options: DatasourceCoordinationOptions,
): Promise<PgCoordination> {
  const { name, datasource, env, appRoot, source, logger } = options;
  // Installed: the primary store was opened through it (chat-store's openPostgresChatDb).
  const store = await import("@agentsvc/store-postgres");
  const settings = store.datasourceConnection({ name, datasource, env, appRoot, source });
  try {
    return await pgCoordination({
      connectionString: settings.connectionString,
      ssl: settings.ssl,
      connectTimeoutMs: settings.connectTimeoutMs,
      logger,
    });
  } catch (err) {
    throw openingFailed(err) ? settings.connectError(err, "cluster link") : err;
  }
}

/**
 * A failure of the connection itself (a socket or TLS error's Node code; node-postgres's connect
 * timeout and a session ended mid-setup say so; PostgreSQL refusing the session: connection
 * exception 08, sign-in 28, no such database 3D000, too many connections 53300, starting up or
 * shutting down 57P0x), not a statement the open link ran and PostgreSQL refused (the bus's LISTEN:
 * a SQLSTATE of another class), nor e.g. pg-cluster missing.
 */
export function openingFailed(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === "string")
    return SQLSTATE.test(code) ? SESSION_REFUSED.some((prefix) => code.startsWith(prefix)) : true;
  return /timeout|terminated|connection ended/i.test(String(message));
}

/**
 * PostgreSQL's error codes: five digits or upper-case letters, no class starting with E (Node's
 * system errors do, five letters too: `EPIPE`).
 */
const SQLSTATE = /^[0-9A-DF-Z][0-9A-Z]{4}$/;
const SESSION_REFUSED = ["08", "28", "3D", "53300", "57P"];
